import { describe, expect, it } from 'vitest';
import { writeDemoCodebase } from 'fed/testing';
import { initFederation, openFederation, proposePlan } from 'fed';
import { analyseMarkdown } from 'fed/agent';
import { findAreas } from '../../src/area-scope.js';
import { withContents } from '../../src/render-markdown.js';
import { planMission } from '../../src/mission-plan.js';
import { surveyCodebase } from 'fed/survey';
import { frameworkProject, writeTree } from '../../../../test/helpers/fixture-repo.js';
import { writeAgentDocument } from '../helpers/agent-document.js';
import { maxSharedLineFraction } from '../../../../test/helpers/shared-lines.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/** `fed plan` on `root`, then every planned team's document, by team. */
async function planAndWrite(root: string, teams?: number): Promise<Map<string, string>> {
  initFederation(root, {}, {});
  const plan = proposePlan(openFederation(root), teams ? { teams } : {});
  const documents = new Map<string, string>();
  for (const team of plan.teams) documents.set(team.team, await writeAgentDocument(root, team.team, team.mission));
  return documents;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** `document` as withContents is given it: the head (title, summary) and the sections, its table of contents aside. */
function partsOf(document: string): { head: string[]; body: string[] } {
  const [head = '', ...sections] = document.trimEnd().split(/\n\n(?=## )/);
  const [title = '', ...summary] = head.split('\n\n');
  return { head: [title, summary.join('\n\n')], body: sections.filter((s) => !s.startsWith('## Contents\n')) };
}

describe('each planned team writes about its own area', () => {
  it('the demo monorepo: the three teams’ documents share almost no lines', async () => {
    const root = tempDir();
    writeDemoCodebase(root);
    const documents = await planAndWrite(root, 3);
    expect([...documents.keys()]).toEqual(['launch-docs', 'registry-docs', 'signals-docs']);
    // Before area documents the same plan gave 0.91 for every pair: one repository overview each.
    expect(maxSharedLineFraction(documents.values())).toBeLessThan(0.15);
    const signals = documents.get('signals-docs')!;
    expect(signals).toMatch(/^# fed-sample: @fed-sample\/signals \(packages\/signals\/\)\n/);
    expect(signals).toContain(
      'describes it as: “File-based signal transport: send, read, acknowledge and watch typed signals”.',
    );
    expect(signals).toContain('### `packages/signals/src/send-signal.ts`');
    expect(signals).not.toContain('packages/registry/src/');
    // Each table of contents was inserted into its draft's analysis: the analysis is the document's own.
    for (const document of documents.values()) {
      expect(document).toContain('\n## Contents\n');
      const { head, body } = partsOf(document);
      const analysed = withContents(head, body);
      expect(analysed.text).toBe(document);
      expect(analysed).toEqual(analyseMarkdown(document));
    }
  });

  it('an npm monorepo: purpose, API with signatures, structure, links in and out with a diagram, entry points, tests, build', async () => {
    const root = writeTree(tempDir(), {
      'package.json': json({ name: 'acme', private: true, workspaces: ['packages/*', 'apps/*'] }),
      'package-lock.json': '{}',
      'packages/core/package.json': json({
        name: '@acme/core',
        description: 'The domain model of acme',
        main: 'src/index.ts',
        scripts: { build: 'tsc -p .', test: 'vitest run' },
        dependencies: { '@acme/utils': '*', zod: '^4' },
      }),
      'packages/core/README.md': '# core\n\nOrders, carts and prices: everything the apps agree on.\n',
      'packages/core/src/index.ts': "export { priceOf } from './price.js';\nexport * from './cart.js';\n",
      'packages/core/src/price.ts': [
        "import { slug } from '@acme/utils';",
        "import { z } from 'zod';",
        '',
        '/** The price of an item, in cents. */',
        'export function priceOf(',
        '  item: string,',
        '  quantity = 1,',
        '): number {',
        '  return z.string().parse(slug(item)).length * quantity;',
        '}',
        '',
      ].join('\n'),
      'packages/core/src/cart.ts':
        '/** A cart: what a customer is about to buy. */\nexport interface Cart {\n  items: string[];\n}\n\nexport const emptyCart = (): Cart => ({ items: [] });\n',
      'packages/core/test/price.test.ts':
        "import { priceOf } from '../../../../test/unit/src/price.js';\npriceOf('a');\n",
      'packages/utils/package.json': json({ name: '@acme/utils', main: 'src/index.ts' }),
      'packages/utils/src/index.ts':
        '/** Lowercase, for ids. */\nexport const slug = (s: string) => s.toLowerCase();\n',
      'apps/cli/package.json': json({
        name: '@acme/cli',
        bin: { acme: 'src/main.ts' },
        dependencies: { '@acme/core': '*' },
      }),
      'apps/cli/src/main.ts': "import { priceOf } from '@acme/core';\nconsole.log(priceOf(process.argv[2] ?? ''));\n",
    });
    const documents = await planAndWrite(root);
    expect([...documents.keys()]).toEqual(['cli-docs', 'core-docs', 'utils-docs']);
    expect(maxSharedLineFraction(documents.values())).toBeLessThan(0.15);
    const core = documents.get('core-docs')!;
    for (const expected of [
      '# acme: @acme/core (packages/core/)',
      '## What `core` is for',
      'describes it as: “The domain model of acme”.',
      '> Orders, carts and prices: everything the apps agree on.',
      '- `priceOf` (line 5): `function priceOf(item: string, quantity = 1): number` — The price of an item, in cents.',
      '- `emptyCart` (line 6): `const emptyCart = (): Cart =>`',
      '- `Cart` (line 2): `interface Cart` — A cart: what a customer is about to buy.',
      '- `packages/core/src/cart.ts` (6 lines): A cart: what a customer is about to buy.',
      '  core --> core_out0',
      '  core_out0["packages/utils/"]',
      '  core_in0["apps/cli/"]',
      '  core -.-> core_pkg0',
      'External packages its files import: `zod` (1 file).',
      '- `packages/core/src/index.ts`: declared in packages/core/package.json main (src/index.ts)',
      '- `packages/core/test/price.test.ts`',
      // The project's own commands (build-commands.ts), run from the package's folder.
      'cd packages/core && npm ci\ncd packages/core && npm run build\ncd packages/core && npm test',
      'The [federation report](',
    ])
      expect(core).toContain(expected);
    expect(documents.get('utils-docs')).toContain('  utils_in0["packages/core/"]');
  });

  it('a Go module split by folders: exported functions, methods and types with their comments', async () => {
    const root = writeTree(tempDir(), {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'cmd/shop/main.go':
        'package main\n\nimport "example.com/shop/internal/orders"\n\nfunc main() {\n\torders.PlaceOrder("book")\n}\n',
      'internal/orders/orders.go':
        '// Package orders takes orders.\npackage orders\n\nimport "example.com/shop/internal/stock"\n\n// PlaceOrder reserves the item.\nfunc PlaceOrder(item string) bool {\n\treturn stock.Reserve(item)\n}\n\nfunc helper() {}\n',
      'internal/orders/orders_test.go': 'package orders\n\nimport "testing"\n\nfunc TestPlaceOrder(t *testing.T) {}\n',
      'cmd/shop/main_test.go':
        'package main\n\nimport (\n\t"testing"\n\n\t"example.com/shop/internal/stock"\n)\n\nfunc TestMain(t *testing.T) { stock.Reserve("a") }\n',
      'internal/stock/stock.go':
        'package stock\n\n// Store holds items.\ntype Store struct{ items []string }\n\n// Reserve takes an item out of stock.\nfunc Reserve(item string) bool { return item != "" }\n\nfunc (s *Store) Count() int { return len(s.items) }\n',
    });
    const documents = await planAndWrite(root);
    const byArea = (name: string) => [...documents].find(([team]) => team.startsWith(name))?.[1] ?? '';
    // Documents of ~45 lines: the code fences and `flowchart LR` alone are a tenth of them.
    expect(maxSharedLineFraction(documents.values())).toBeLessThan(0.2);
    const orders = byArea('orders');
    expect(orders).toContain(
      '- `PlaceOrder` (line 7): `func PlaceOrder(item string) bool` — PlaceOrder reserves the item.',
    );
    expect(orders).not.toContain('`helper`');
    expect(orders).toContain('go build ./internal/orders/...');
    const stock = byArea('stock');
    expect(stock).toContain('- `Store.Count` (line 9): `func (s *Store) Count() int`');
    expect(stock).toContain('- `Store` (line 4): `type Store struct` — Store holds items.');
    expect(stock).toContain('- `cmd/shop/main_test.go`');
    expect(orders).toContain('1 test file inside `internal/orders/`:\n\n- `internal/orders/orders_test.go`');
  });

  it('Python: `__all__` narrows the API, `_private` names stay out, docstrings say what each is', async () => {
    const root = writeTree(tempDir(), {
      'pyproject.toml': '[project]\nname = "tokens"\n',
      'tokens/__init__.py': '"""Tokens: sign and check them."""\n',
      'tokens/sign.py':
        '__all__ = ["sign"]\n\n\ndef sign(token: str,\n         key: bytes) -> str:\n    """Sign a token with a key."""\n    return token\n\n\ndef unused():\n    pass\n',
      'tokens/check.py': 'class Checker:\n    """Checks signed tokens."""\n\n\ndef _private():\n    pass\n',
      'web/app.py': 'from tokens.sign import sign\n\n\ndef serve():\n    return sign("a", b"k")\n',
      'tests/test_sign.py': 'from tokens.sign import sign\n\n\ndef test_sign():\n    assert sign("a", b"k")\n',
    });
    const documents = await planAndWrite(root);
    const tokens = documents.get('tokens-docs')!;
    expect(tokens).toContain('- `sign` (line 4): `def sign(token: str, key: bytes) -> str` — Sign a token with a key.');
    expect(tokens).toContain('- `Checker` (line 1): `class Checker` — Checks signed tokens.');
    expect(tokens).not.toContain('`unused`');
    expect(tokens).not.toContain('`_private`');
    expect(tokens).toContain('  tokens_in0["web/"]');
    expect(tokens).toContain('1 test file elsewhere imports `tokens/`:\n\n- `tests/test_sign.py`');
    // The commands the project declares (build-commands.ts): pyproject.toml names no pytest, so none is guessed.
    expect(tokens).toContain('To build and test `tokens/`:\n\n```sh\npip install -e .\n```');
  });

  it("a package nested in an area's folder keeps its entry points to itself", async () => {
    const root = writeTree(tempDir(), {
      'package.json': json({ name: 'acme', private: true, workspaces: ['packages/app', 'packages/app/cli'] }),
      'package-lock.json': '{}\n',
      'packages/app/package.json': json({ name: '@acme/app', main: 'src/index.js', scripts: { test: 'node --test' } }),
      'packages/app/src/index.js':
        "import { load } from './load.js';\nexport function start() {\n  return load();\n}\n",
      'packages/app/src/load.js': 'export function load() {\n  return 1;\n}\n',
      'packages/app/cli/package.json': json({ name: '@acme/cli', bin: 'index.js' }),
      'packages/app/cli/index.js': 'export function shout(text) {\n  return text.toUpperCase();\n}\n',
    });
    const app = await writeAgentDocument(root, 'app-docs', { subject: 'Document packages/app/', body: '' });
    const starts = /## Where `app` starts\n\n([^#]*)/.exec(app)?.[1] ?? '';
    expect(starts).toContain('`packages/app/src/index.js`');
    expect(starts).not.toContain('packages/app/cli');
    expect(app).toContain('cd packages/app && npm test');
  });

  it('a team with two areas: a section per area, and a fix attempt adds the repository overview', async () => {
    const root = writeTree(tempDir(), {
      'package.json': json({ name: 'acme', private: true, workspaces: ['packages/*'] }),
      'packages/core/package.json': json({ name: '@acme/core', main: 'src/index.ts' }),
      'packages/core/src/index.ts':
        "import { slug } from '@acme/utils';\nexport const core = (s: string) => slug(s);\n",
      'packages/utils/package.json': json({ name: '@acme/utils', main: 'src/index.ts' }),
      'packages/utils/src/index.ts': 'export const slug = (s: string) => s.toLowerCase();\n',
    });
    const mission = { subject: 'Document packages/core/ and packages/utils/', body: '' };
    const both = await writeAgentDocument(root, 'both-docs', mission);
    expect(both).toMatch(/^# acme: @acme\/core \(packages\/core\/\), @acme\/utils \(packages\/utils\/\)\n/);
    for (const expected of [
      '## `packages/core/`',
      '### What `core` is for',
      '## `packages/utils/`',
      '### The public API of `utils`',
      '- `core` (line 2): `const core = (s: string) =>`',
    ])
      expect(both).toContain(expected);
    expect(both).not.toContain('## Layout');
    const fix = { attempt: 1, of: 2, event: 'DOCUMENT_WRITTEN', reason: 'refused', violations: ['needs more'] };
    const fuller = await writeAgentDocument(root, 'fix-docs', mission, fix);
    expect(fuller).toContain('## Layout');
    expect(fuller).toContain('## `packages/core/`');
  });

  it('a path in a question or a how-does-X-work instruction stays a topic; in a statement it is an area', () => {
    const survey = surveyCodebase(frameworkProject(tempDir()));
    const areasOf = (subject: string) =>
      findAreas(survey, planMission({ subject, body: '' }, survey.name).topics).areas.map((a) => a.path);
    expect(areasOf('Document src/middleware/')).toEqual(['src/middleware']);
    expect(areasOf('How does `src/middleware/` run a request?')).toEqual([]);
    expect(areasOf('Explain how a request flows through `src/middleware/`')).toEqual([]);
    expect(areasOf('Document src/router.js')).toEqual([]);
  });
});
