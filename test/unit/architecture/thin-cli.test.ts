import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Issue #18 item 3: the library never prints or exits, and never imports the CLI; `src/cli` parses,
 * calls the library and renders. Read from the source, so a regression fails here, not in review.
 */
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Programs of their own, started as processes: printing and exit codes are their job. */
const PROGRAMS: Record<string, string> = {
  'apps/agent/main.ts': 'the fed-agent program (its executable, apps/agent/bin.ts, only imports it)',
  'apps/launch/agent-watchdog.ts': 'the watchdog process fed launch starts around an agent',
};

const CLI_IMPORT = /from '((?:\.\.?\/)+)cli\/[^']*'/g;
const PRINTS_OR_EXITS = /\b(?:console\.(?:log|info|warn|error|debug)|process\.(?:stdout|stderr)\.write|process\.exit(?:Code)?)\b/g;

function libraryFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === join(SRC, 'cli') ? [] : libraryFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** What in a library file makes the CLI less thin: an import of src/cli, a print, an exit. */
export function cliLeaks(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(CLI_IMPORT)) {
    const target = relative(SRC, join(file, '..', match[1]!, 'cli')).replaceAll('\\', '/');
    if (target === 'cli') found.push(`imports ${match[0].slice(6, -1)}`);
  }
  for (const match of text.matchAll(PRINTS_OR_EXITS)) found.push(match[0]);
  return found;
}

describe('the library never prints, exits or imports the CLI', () => {
  it('holds for every module outside src/cli but the standalone programs', () => {
    const leaks = libraryFiles(SRC).flatMap((file) => {
      const name = relative(SRC, file).replaceAll('\\', '/');
      if (name in PROGRAMS) return [];
      // Comments may mention them; code may not.
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      return cliLeaks(file, code).map((leak) => `${name}: ${leak}`);
    });
    expect(leaks).toEqual([]);
  });

  it('recognises each kind of leak (so the check above can fail)', () => {
    const file = join(SRC, 'apps', 'monitor', 'run-monitor.ts');
    expect(cliLeaks(file, "import { renderTable } from '../../cli/render.js';")).toEqual(["imports ../../cli/render.js"]);
    expect(cliLeaks(file, "import { x } from '../../core/table.js';")).toEqual([]);
    expect(cliLeaks(file, 'console.log(1); process.stderr.write("x"); process.exit(2); process.exitCode = 1;')).toEqual([
      'console.log',
      'process.stderr.write',
      'process.exit',
      'process.exitCode',
    ]);
  });

  it('every standalone program is still there', () => {
    const names = new Set(libraryFiles(SRC).map((file) => relative(SRC, file).replaceAll('\\', '/')));
    expect(Object.keys(PROGRAMS).filter((name) => !names.has(name))).toEqual([]);
  });
});
