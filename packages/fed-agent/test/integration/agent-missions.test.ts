import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FAILURE } from '../../src/run-agent.js';
import { checkDeliverable } from 'fed';
import { packageRoot } from 'fed/testing';
import { writeTree } from '../../../../test/helpers/fixture-repo.js';
import { agentContext, runBuiltInAgent } from '../helpers/agent-document.js';
import { skipWithout } from '../../../../test/helpers/loud-skip.js';
import { tempDir } from '../../../../test/helpers/temp-dir.js';

/**
 * Missions as people write them, run through the built-in agent's own work (runAgent: plan, scan,
 * search, write, check) against real codebases copied into temp dirs: a JavaScript package from the
 * install (commander), a Python package Debian ships (PyJWT), and small repositories built here. Generic
 * missions in any phrasing complete with the general document; a subject the codebase does not have
 * fails, naming what was searched.
 */

/** Copies of real packages' sources (no compiled caches), made once: the agent only reads its codebase. */
const copies = mkdtempSync(join(tmpdir(), 'fed-agent-missions-'));
afterAll(() => rmSync(copies, { recursive: true, force: true }));

function copyOf(source: string): string {
  const root = join(copies, basename(source));
  if (!existsSync(root))
    cpSync(source, root, { recursive: true, dereference: true, filter: (path) => !path.includes('__pycache__') });
  return root;
}

const commander = () => copyOf(join(packageRoot(), 'node_modules', 'commander'));
/**
 * PyJWT as Debian ships it (python3-jwt): a real Python package with no packaging of its own (.ci/run
 * installs it). Never replaced by a stand-in where it is missing: its tests skip, loudly (under CI they fail).
 */
const PYJWT = '/usr/lib/python3/dist-packages/jwt';
const skipWithoutPyjwt = (test: string): boolean =>
  skipWithout(
    `agent-missions: ${test}`,
    existsSync(PYJWT) ? undefined : `${PYJWT} is missing (install it: apt-get install python3-jwt)`,
  );
const pyjwt = () => copyOf(PYJWT);

async function run(codebase: string, subject: string, body = '') {
  const context = agentContext(codebase, { mission: { subject, body } });
  const outcome = await runBuiltInAgent(context);
  const markdown = outcome.status === 'complete' ? readFileSync(context.deliverablePath, 'utf8') : '';
  return { outcome, markdown, context };
}

const GENERIC: [string, string][] = [
  ['Survey the codebase', 'Read-only study.'],
  ['Survey the codebase', ''],
  ['Doc', ''],
  ['Document this codebase', ''],
  ['Write a short overview for new contributors', ''],
  ['Please study this repo', ''],
  ['Architecture', ''],
  ['Give me an onboarding guide', ''],
  ['Write docs', 'Please write a brief, high-level summary of the repository for someone joining the team.'],
  ['What does this project do?', ''],
  ['Study the code base', 'Produce documentation. Read-only: do not change anything.'],
  ['Give me a quick tour of the code', ''],
  ['Explain how this repo works', ''],
  ['README', 'Just the essentials.'],
  // Open phrasing: no closed word list holds "land", "locally", "moving" or "minutiae"; they are
  // instruction because no document verb asks about them and the codebase names none of them.
  ['Give me the lay of the land.', ''],
  ['Explain how to get up and running locally.', ''],
  ['What are its moving parts?', ''],
  ['Stay high level; skip the minutiae.', ''],
  ['Write docs', 'Keep it under two pages.'],
  ['Help me find my way around.', 'Bring me up to speed, warts and all.'],
  ['How do I get my bearings here?', ''],
  ['Could you sketch the big picture for a curious outsider?', ''],
  ['Orient a newcomer', 'Tell me what matters first and what can wait.'],
  ['Explain the big picture', ''],
  ["Describe the bird's-eye view of it", ''],
];

describe('generic missions, in any phrasing, produce the general document', () => {
  async function expectGeneralDocument(codebase: string, subject: string, body: string): Promise<void> {
    const { outcome, markdown, context } = await run(codebase, subject, body);
    expect(outcome, `${basename(codebase)}: ${JSON.stringify(outcome)}`).toMatchObject({ status: 'complete' });
    expect(checkDeliverable(context.deliverablePath).violations).toEqual([]);
    // The general document: no section restating the mission as a topic, the overview's sections.
    expect(markdown).not.toContain('From the mission:');
    expect(markdown).toContain('## How to build and run it');
    expect(markdown).toContain('## Where to start reading');
  }

  it.each(GENERIC)('%j %j completes on a real JavaScript package', async (subject, body) => {
    await expectGeneralDocument(commander(), subject, body);
  });

  it.skipIf(skipWithoutPyjwt('generic missions on PyJWT')).each(GENERIC)(
    '%j %j completes on a real Python package',
    async (subject, body) => {
      await expectGeneralDocument(pyjwt(), subject, body);
    },
  );
});

describe('a subject the codebase does not have fails, naming what was searched', () => {
  it.each([
    ['Document the payment gateway', '', /"payment", "gateway"/],
    ['Survey the codebase', 'Focus on the "flux capacitor".', /no file mentions "flux", "capacitor"/],
    ['How does a blockchain ledger get reconciled?', 'Read-only study.', /"blockchain", "ledger", "reconciled"/],
    ['Explain `src/billing/`', '', /no file or folder "src\/billing" exists/],
    // Open phrasing elsewhere in the mission does not make a subject it asks about generic.
    ['Document the payment gateway', 'Keep it short and high level.', /"payment", "gateway"/],
    ['Can you explain the payment gateway?', '', /"payment", "gateway"/],
    ['Give me the lay of the land', 'Focus on the paymentGateway.', /"paymentgateway"/],
  ] as const)('%j %j', async (subject, body, what) => {
    const codebase = commander();
    const { outcome } = await run(codebase, subject, body);
    expect(outcome.status).toBe('failed');
    const reason = outcome.status === 'failed' ? outcome.reason : '';
    expect(reason.startsWith(FAILURE.nothingFound)).toBe(true);
    expect(reason).toMatch(what);
    expect(reason).toMatch(/searched the paths, declared names and text of \d+ code and documentation files/);
  });

  it.skipIf(skipWithoutPyjwt('a specific subject of PyJWT'))(
    'a specific subject the codebase has is answered, with the overview after it',
    async () => {
      const { outcome, markdown } = await run(pyjwt(), 'How does a token get decoded?', 'Read-only study.');
      expect(outcome.status).toBe('complete');
      expect(markdown).toContain('## How does a token get decoded?');
      expect(markdown).toMatch(/`api_jwt\.py/);
    },
  );
});

describe('a mission whose main subject is absent fails, whatever side word matches', () => {
  it('Stripe on commander: nothing about payments, so nothing answers', async () => {
    const { outcome } = await run(
      commander(),
      'Document how this codebase integrates with the Stripe payment gateway: the checkout flow and webhook handling',
    );
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' ? outcome.reason : '').toContain('its main subject is absent');
  });

  it.skipIf(skipWithoutPyjwt('an absent subject beside words PyJWT has'))(
    'OAuth login with Okta on PyJWT: tokens and a key refresh are there, the subject is not',
    async () => {
      const { outcome } = await run(pyjwt(), 'OAuth login with Okta — the redirect and token refresh');
      expect(outcome.status).toBe('failed');
      const reason = outcome.status === 'failed' ? outcome.reason : '';
      expect(reason).toContain('its main subject is absent: no file mentions most of "oauth", "login", "okta"');
      expect(reason).toMatch(/found instead: .*"token" appears/);
    },
  );
});

describe('onboarding guides name the commands the project declares', () => {
  const guide = async (codebase: string) => {
    const { outcome, markdown } = await run(codebase, 'Write an onboarding guide', 'For new contributors.');
    expect(outcome.status).toBe('complete');
    // How to build and run it comes first, then where to start reading.
    expect(
      [...markdown.matchAll(/^## (.+)$/gm)]
        .map((m) => m[1])
        .filter((t) => t !== 'Contents')
        .slice(0, 2),
    ).toEqual(['How to build and run it', 'Where to start reading']);
    return markdown;
  };
  const shell = (markdown: string) =>
    /From a fresh clone, to install, build, test and run it:\n\n```sh\n([^`]*)```/.exec(markdown)?.[1];

  it('npm: the scripts, run with the package manager the lock file names', async () => {
    expect(shell(await guide(commander()))).toBe('npm install\nnpm test\nnpm run check\n');
    const pnpm = writeTree(tempDir(), {
      'package.json': JSON.stringify({
        name: 'web',
        main: 'src/index.js',
        scripts: { build: 'tsc', test: 'vitest run', start: 'node src/index.js' },
      }),
      'pnpm-lock.yaml': 'lockfileVersion: 9.0\n',
      'README.md': '# web\n',
      'src/index.js': "import { util } from '../../../../test/integration/util.js';\nutil();\n",
      'src/util.js': 'export function util() {}\n',
    });
    const markdown = await guide(pnpm);
    expect(shell(markdown)).toBe('pnpm install\npnpm run build\npnpm test\npnpm start\n');
    expect(markdown).toContain('1. Read `README.md` first');
    expect(markdown).toContain('entry point, where execution starts: `src/index.js`');
  });

  it('Go: go build, go test, and go run for each main package', async () => {
    const root = writeTree(tempDir(), {
      'go.mod': 'module example.com/shop\n\ngo 1.22\n',
      'cmd/shop/main.go':
        'package main\n\nimport "example.com/shop/internal/orders"\n\nfunc main() {\n\torders.PlaceOrder("book")\n}\n',
      'internal/orders/orders.go': 'package orders\n\nfunc PlaceOrder(item string) bool { return item != "" }\n',
      'internal/orders/orders_test.go': 'package orders\n\nimport "testing"\n\nfunc TestPlaceOrder(t *testing.T) {}\n',
      Makefile:
        '.PHONY: build test\nVERSION := 1\n\nbuild:\n\tgo build ./...\n\ntest: build\n\tgo test ./...\n\nrelease docker: build\n\t./release.sh\n',
    });
    const markdown = await guide(root);
    expect(shell(markdown)).toBe('go build ./...\nmake build\ngo test ./...\nmake test\ngo run ./cmd/shop\n');
    expect(markdown).toContain("The Makefile's other targets: `make release`, `make docker`.");
    expect(markdown).toContain('| Run | `go run ./cmd/shop` | package main in cmd/shop |');
  });

  it('Python: pip install, and pytest and tox from setup.cfg and tox.ini', async () => {
    const root = writeTree(tempDir(), {
      'setup.cfg': '[metadata]\nname = tokens\n\n[tool:pytest]\ntestpaths = tests\n',
      'setup.py': 'from setuptools import setup\nsetup()\n',
      'tox.ini': '[tox]\nenvlist = py311\n',
      'requirements.txt': 'requests\n',
      'tokens/__init__.py': '',
      'tokens/verify.py': 'def check_token(token):\n    return token != ""\n',
      'tests/test_verify.py':
        'from tokens.verify import check_token\n\n\ndef test_check():\n    assert check_token("x")\n',
    });
    expect(shell(await guide(root))).toBe('pip install -e .\npip install -r requirements.txt\npytest\ntox\n');
  });

  it.skipIf(skipWithoutPyjwt("PyJWT's onboarding guide"))(
    'a real Python package with no packaging of its own: the guide says so',
    async () => {
      expect(await guide(pyjwt())).toContain('there is no declared way to build or run the code');
    },
  );
});
