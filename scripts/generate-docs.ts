/**
 * `npm run docs`: writes the generated reference pages (docs/reference/cli.md from the commander program,
 * docs/reference/config.md from the config schema). test/unit/docs-reference.test.ts fails when the
 * committed pages differ from what this writes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../src/infra/package-info.js';
import { renderReferenceDocs } from '../src/cli/reference-docs.js';

for (const [path, content] of await renderReferenceDocs()) {
  const target = join(packageRoot(), path);
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, content);
  process.stdout.write(`wrote ${path}\n`);
}
