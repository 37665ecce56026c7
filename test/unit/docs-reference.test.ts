import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  CONFIG_FIELD_DESCRIPTIONS,
  configFields,
  packageRoot,
  renderConfigReference,
  renderReferenceDocs,
} from 'fed/testing';

const STALE = 'is stale: run npm run docs (and commit docs/reference/)';

describe('docs/reference/', () => {
  test('is up to date with the CLI program and the config schema (run npm run docs after changing them)', async () => {
    const expected = await renderReferenceDocs();
    expect([...expected.keys()]).toEqual(['docs/reference/cli.md', 'docs/reference/config.md']);
    for (const [path, content] of expected) {
      const file = join(packageRoot(), path);
      expect(existsSync(file), `${path} is missing: run npm run docs`).toBe(true);
      expect(readFileSync(file, 'utf8') === content, `${path} ${STALE}`).toBe(true);
    }
  });

  test('renders the same text every time', async () => {
    const [first, second] = [await renderReferenceDocs(), await renderReferenceDocs()];
    expect(second).toEqual(first);
  });

  test('the CLI reference lists every command and subcommand with its options', async () => {
    const cli = (await renderReferenceDocs()).get('docs/reference/cli.md')!;
    for (const heading of [
      '## fed init',
      '### fed team onboard',
      '### fed signal send',
      '## fed launch',
      '### fed migrate to-files',
      '### fed chat bridge',
    ]) {
      expect(cli).toContain(`\n${heading}\n`);
    }
    expect(cli).toContain(
      '| `--placement <type>` | workspace placement (one of `directory`, `worktree`) | `"directory"` |',
    );
    expect(cli).toContain(
      '| `--type <type>` | signal type (required; one of `directive`, `question`, `report`, `alert`) |  |',
    );
    // Descriptions naming <file> survive GitHub's HTML filter.
    expect(cli).toContain('append xstate inspection events to &lt;file&gt; as JSON lines');
  });

  test('the config reference has a row per field, with its type and default', () => {
    const config = renderConfigReference();
    expect(
      configFields()
        .map((field) => field.path)
        .sort(),
    ).toEqual(Object.keys(CONFIG_FIELD_DESCRIPTIONS).sort());
    expect(config).toContain('| `agentCommand` | string | `"fed-agent"` |');
    expect(config).toContain('| `backend.type` | "files" \\| "jetstream", required |  |');
    expect(config).toContain('| `backend.replicas` | integer (≥ 1, ≤ 5) | `1` |');
  });
});
