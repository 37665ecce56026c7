import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ADAPTERS, BACKEND_TYPES, DEFAULT_ADAPTER } from 'fed/testing';

/**
 * A storage backend is one folder plus one entry (CONTRIBUTING.md, "Add a storage backend"): its adapter in
 * src/adapters/<type>/, its config schema in src/core/schema/backends/, and the two lists that name it — the
 * schema union in core/schema/config.ts and ADAPTERS in src/adapters/index.ts. Everything else reaches a
 * backend's differences through its adapter (`adapterFor(config)`). This test reads the source and fails
 * when a module elsewhere selects a backend by its `type` (importing an adapter's internals is the linter's
 * to refuse).
 */
const SRC = fileURLToPath(new URL('../../../src/', import.meta.url));

/** Where a backend may be named: the lists, the package entry (its 0.1 exports), the schemas. */
const LISTS = ['adapters/index.ts', 'core/schema/config.ts', 'index.ts'];
const mayName = (file: string, type: string) =>
  LISTS.includes(file) || file.startsWith('core/schema/backends/') || file.startsWith(`adapters/${type}/`);

/** The ways a module selects a backend: its `type` as a string, or a comparison of `backend.type`. */
export function namesBackend(text: string, type: string): string[] {
  const found = [...text.matchAll(new RegExp(`['"]${type}['"]`, 'g'))].map((match) => match[0]);
  for (const match of text.matchAll(/\bbackend\??\.type\s*[!=]==?/g)) found.push(match[0]);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('backends come from the adapter registry', () => {
  it('every backend type the config accepts has one adapter, and every adapter a type', () => {
    expect(ADAPTERS.map((adapter) => adapter.type).sort()).toEqual([...BACKEND_TYPES].sort());
    expect(ADAPTERS).toContain(DEFAULT_ADAPTER);
  });

  it('no module outside its adapter, its schema and the two lists selects a backend by name', () => {
    const offenders: Record<string, string[]> = {};
    for (const path of sourceFiles(SRC)) {
      const file = relative(SRC, path).replaceAll('\\', '/');
      const text = readFileSync(path, 'utf8');
      for (const { type } of ADAPTERS.filter((adapter) => adapter !== DEFAULT_ADAPTER)) {
        if (mayName(file, type)) continue;
        const found = namesBackend(text, type);
        if (found.length) offenders[file] = [...(offenders[file] ?? []), ...found];
      }
    }
    expect(offenders).toEqual({});
  });

  it('recognises each way of selecting a backend (so the check above can fail)', () => {
    expect(namesBackend("if (config.backend?.type === 'jetstream') open();", 'jetstream')).toEqual([
      "'jetstream'",
      'backend?.type ===',
    ]);
    expect(namesBackend('const shared = backend.type !== "files";', 'jetstream')).toEqual(['backend.type !==']);
    expect(namesBackend("'`files` or `jetstream`; fed migrate to-jetstream'", 'jetstream')).toEqual([]);
  });
});
