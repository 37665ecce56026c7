import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue #12: everything above the ports talks to signals, the registry and lifecycles only through them
 * (src/ports), so a second backend is one adapter, not edits in twenty files. This test reads the source
 * and fails when a module outside the file adapter touches those files directly, by naming the paths of
 * the boxes, the envelope, the journal, the kept runs, the state lock, the registry or the federation
 * journal from src/core/layout.ts. Importing the adapter's internals is the linter's to refuse (a
 * no-restricted-paths zone in eslint.config.mjs, with its own list of exceptions).
 */
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** The adapters (their registry and the workspace check they share included), and the layers below them. */
const ADAPTER = [/^adapters\//, /^infra\/fs\//, /^core\//];

/**
 * Modules that still name those files, each with why. Keep this list short and honest: an entry here is
 * work left for the next adapter to face.
 */
const KNOWN: Record<string, string> = {
  'apps/init/init-federation.ts':
    "`fed init` creates meta's signal box folders, on every backend (the registry file is the file adapter's initFiles)",
  'apps/init/locate.ts': 'finds the federation root of a directory by its registry file (before any backend is opened)',
};

const FILE_FIELDS = '(?:inbox|outbox|envelope|journal|history|stateLock|registry|registryLock|federationJournal)';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What in `text` touches the signal, registry or lifecycle files directly. */
export function directAccess(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(
    new RegExp(`(?:workspacePaths|federationPaths)\\([^()]*\\)\\.${FILE_FIELDS}\\b`, 'g'),
  ))
    found.push(match[0]);
  // Variables holding a layout: `const paths = workspacePaths(x)` … `paths.inbox`, or destructured.
  for (const match of text.matchAll(/(?:const|let)\s+(\w+)\s*=\s*(?:workspacePaths|federationPaths)\(/g)) {
    for (const use of text.matchAll(new RegExp(`\\b${match[1]}\\.${FILE_FIELDS}\\b`, 'g'))) found.push(use[0]);
  }
  for (const match of text.matchAll(/(?:const|let)\s*\{([^}]*)\}\s*=\s*(?:workspacePaths|federationPaths)\(/g)) {
    for (const name of match[1]!.split(',').map((part) => part.split(':')[0]!.trim())) {
      if (new RegExp(`^${FILE_FIELDS}$`).test(name)) found.push(`{ ${name} } = …Paths(…)`);
    }
  }
  return found;
}

describe('the ports are the only way to signals, the registry and lifecycles', () => {
  it('no module outside the file adapter touches their files directly', () => {
    const offenders: Record<string, string[]> = {};
    for (const path of sourceFiles(SRC)) {
      const file = relative(SRC, path).replaceAll('\\', '/');
      if (ADAPTER.some((pattern) => pattern.test(file)) || file in KNOWN) continue;
      const found = directAccess(readFileSync(path, 'utf8'));
      if (found.length) offenders[file] = found;
    }
    expect(offenders).toEqual({});
  });

  it('recognises each way of touching them (so the check above can fail)', () => {
    expect(directAccess('const dir = workspacePaths(team.location).inbox;')).toEqual([
      'workspacePaths(team.location).inbox',
    ]);
    expect(directAccess('const paths = federationPaths(root);\nreadFileSync(paths.registry);')).toEqual([
      'paths.registry',
    ]);
    expect(directAccess('const { envelope, logs } = workspacePaths(w);')).toEqual(['{ envelope } = …Paths(…)']);
    expect(directAccess('const paths = workspacePaths(w);\nreadFileSync(paths.agentLog);')).toEqual([]);
  });

  it('every known exception still needs to be one', () => {
    for (const file of Object.keys(KNOWN)) {
      expect(directAccess(readFileSync(join(SRC, file), 'utf8')), file).not.toEqual([]);
    }
  });
});
