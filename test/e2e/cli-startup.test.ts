import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { packageVersion } from '../../src/package-info.js';

/**
 * What each command loads before it runs (issue 18): start-up time is set by the code compiled, so these
 * guard the bundle's shape; `npm run bench` (startup) measures the time itself.
 */
const STATIC_IMPORT = /(?:^|[;\n])\s*import\s*(?:[\w*{}\s,$]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g;

/** The built files `file` loads before it runs: itself and its static imports, transitively, with their text. */
function staticClosure(file: string, seen = new Map<string, string>()): Map<string, string> {
  if (seen.has(file)) return seen;
  const text = readFileSync(file, 'utf8');
  seen.set(file, text);
  for (const match of text.matchAll(STATIC_IMPORT)) staticClosure(resolve(dirname(file), match[1]!), seen);
  return seen;
}

const CHUNKS = join(dirname(FED_BIN), '..', 'chunks');
const commandChunk = (name: string) => join(CHUNKS, readdirSync(CHUNKS).find((f) => f.startsWith(`${name}-`))!);
const bytes = (files: Map<string, string>) => [...files.values()].reduce((sum, text) => sum + text.length, 0);
const loads = (files: Map<string, string>, marker: string) => [...files.values()].some((text) => text.includes(marker));

describe('fast start', () => {
  it('`fed --version` loads the program and no command: no zod, no xstate, well under 100 KB', async () => {
    const main = staticClosure(FED_BIN);
    expect(bytes(main)).toBeLessThan(100_000);
    expect(loads(main, 'ZodError')).toBe(false);
    expect(loads(main, 'createMachine')).toBe(false);
    expect(await runFed(['--version'])).toMatchObject({ code: 0, stdout: `${packageVersion()}\n` });
  });

  it('commands load only what they use: the OpenTelemetry SDK and the Markdown parser load on demand', () => {
    for (const command of ['event', 'signal', 'team', 'actors', 'launch', 'monitor']) {
      const files = staticClosure(commandChunk(command));
      expect(loads(files, 'PeriodicExportingMetricReader'), `${command} loads the OTel SDK up front`).toBe(false);
      expect(loads(files, 'micromark'), `${command} loads the Markdown parser up front`).toBe(false);
    }
  });

  it('help still lists every command, each loaded only for it', async () => {
    const help = await runFed(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['init', 'team', 'signal', 'event', 'actors', 'launch', 'monitor', 'chat', 'deliverable', 'demo']) expect(help.stdout).toContain(`  ${command}`);
    expect(await runFed(['tema', 'list'])).toMatchObject({ code: 2, stderr: expect.stringContaining('team') });
  });
});
