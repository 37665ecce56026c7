import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { archetypes, findScriptImports, progressLines } from 'fed/testing';
import { documentedEvents } from 'fed';

const repo = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Lines that compare an archetype id with a string literal, or switch on one. */
function archetypeLiteralChecks(text: string): string[] {
  const compare =
    /\barchetype(?:Id)?\s*[!=]==?\s*['"`]|['"`]\s*[!=]==?\s*[\w.?]*\barchetype(?:Id)?\b|switch\s*\([^)]*\barchetype(?:Id)?\s*\)/;
  return text.split('\n').filter((line) => compare.test(line));
}

describe('archetypes are declared in one place each', () => {
  test('machines/ imports nothing but xstate, zod and itself', () => {
    const files = sourceFiles(join(repo, 'machines'));
    expect(files.length).toBeGreaterThan(5);
    const foreign = files.flatMap((file) =>
      findScriptImports(readFileSync(file, 'utf8'))
        .filter((spec) => !['xstate', 'zod'].includes(spec) && !/^\.\/[\w.-]+\.js$/.test(spec))
        .map((spec) => `${relative(repo, file)} imports ${spec}`),
    );
    expect(foreign).toEqual([]);
  });

  test('the import check is not vacuous', () => {
    expect(
      findScriptImports(
        "import { z } from 'zod';\nexport { x } from '../src/schema/common.js';\nconst m = await import('node:fs');",
      ),
    ).toEqual(['zod', '../src/schema/common.js', 'node:fs']);
  });

  test('no module outside the archetype folders compares an archetype id with a literal', () => {
    const archetypeFolders = archetypes.map((a) => join(repo, 'src', 'engine', 'archetypes', a.id));
    const outside = [...sourceFiles(join(repo, 'src')), ...sourceFiles(join(repo, 'machines'))].filter(
      (file) => !archetypeFolders.some((folder) => file.startsWith(folder + '/')),
    );
    const found = outside.flatMap((file) =>
      archetypeLiteralChecks(readFileSync(file, 'utf8')).map((line) => `${relative(repo, file)}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  test('the literal check is not vacuous', () => {
    for (const line of [
      "if (team.archetypeId === 'deliverable') {",
      "team.archetypeId !== 'coding'",
      "'consultant' === entry.archetypeId",
      'const readOnly = context.archetype === `deliverable`',
      'switch (team.archetypeId) {',
    ]) {
      expect(archetypeLiteralChecks(line), line).toEqual([line]);
    }
    expect(archetypeLiteralChecks('archetypeOf(team) !== codingArchetype')).toEqual([]);
  });

  test('every archetype folder is in the catalog, under its own id', () => {
    const folders = readdirSync(join(repo, 'src', 'engine', 'archetypes')).filter((name) =>
      statSync(join(repo, 'src', 'engine', 'archetypes', name)).isDirectory(),
    );
    expect(folders.sort()).toEqual(archetypes.map((a) => a.id).sort());
  });

  test.each(archetypes.map((a) => [a.id, a] as const))(
    '%s: the launch prompt lists every event its agent sends, from the event schema',
    (_id, archetype) => {
      const schema = archetype.lifecycle.eventSchema as unknown as Parameters<typeof documentedEvents>[0];
      const agentEvents = documentedEvents(schema).filter(({ doc }) => doc.sentBy === 'agent');
      expect(agentEvents.length).toBeGreaterThan(0);
      const lines = progressLines(archetype.lifecycle);
      expect(lines).toHaveLength(agentEvents.length);
      agentEvents.forEach(({ type, doc }, i) => {
        expect(lines[i]).toContain(`fed event ${type}`);
        expect(lines[i]).toContain(doc.summary);
        // The example payload shown is one the schema accepts.
        expect(archetype.lifecycle.eventSchema.safeParse({ type, ...doc.example }).success, `${type} example`).toBe(
          true,
        );
      });
    },
  );

  test.each(archetypes.map((a) => [a.id, a] as const))('%s: every event of its own is documented', (_id, archetype) => {
    const shared = new Set(['FAIL', 'PAUSE', 'RESUME', 'MISSION_ASSIGNED', 'DIRECTIVE_RECEIVED', 'QUESTION_RECEIVED']);
    const schema = archetype.lifecycle.eventSchema as unknown as Parameters<typeof documentedEvents>[0];
    const documented = documentedEvents(schema).map((e) => e.type);
    expect(documented.sort()).toEqual(archetype.lifecycle.events.filter((type) => !shared.has(type)).sort());
  });
});
