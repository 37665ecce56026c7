import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Write `files` (relative path → content) under `root`, creating folders as needed. */
export function writeTree(root: string, files: Record<string, string | Buffer>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

/**
 * A small TypeScript project: a CLI and a library entry declared in package.json (compiled to dist/),
 * three source folders importing each other, a test, a TODO, and files that a survey must skip
 * (ignored by .gitignore, node_modules/, .git/).
 */
export function typescriptProject(root: string): string {
  return writeTree(root, {
    'package.json': JSON.stringify(
      {
        name: 'tiny-ts',
        description: 'A tiny TypeScript tool',
        bin: { tiny: 'dist/cli.js' },
        main: 'dist/index.js',
        scripts: { build: 'tsc', test: 'vitest run', lint: 'eslint .' },
        dependencies: { zod: '^4' },
        devDependencies: { vitest: '^4', typescript: '^5' },
      },
      null,
      2,
    ),
    'package-lock.json': '{}\n',
    '.gitignore': 'dist/\n*.log\n',
    'README.md': '# tiny-ts\n\nMentions a TODO in prose, which is not a marker.\n',
    'src/cli.ts':
      "import { readFileSync } from 'node:fs';\nimport { z } from 'zod';\nimport { run } from './commands/run.js';\n\nrun(z.string().parse(readFileSync(0, 'utf8')));\n",
    'src/index.ts': "export * from './core/engine.js';\n",
    'src/core/engine.ts':
      "import { helper } from '../util/helper.js';\n\n// TODO: cache the results\nexport function engine(input: string): string {\n  return helper(input);\n}\n",
    'src/util/helper.ts': '// FIXME: handle empty input\nexport const helper = (s: string) => s.trim();\n',
    'src/commands/run.ts':
      "import { engine } from '../core/engine.js';\nimport { helper } from '../util/helper.js';\n\nexport function run(input: string): void {\n  console.log(engine(helper(input)));\n}\n",
    'test/engine.test.ts':
      "import { engine } from '../src/core/engine.js';\nimport { expect, it } from 'vitest';\n\nit('trims', () => expect(engine(' a ')).toBe('a'));\n",
    'dist/cli.js': 'compiled output, ignored\n',
    'debug.log': 'ignored\n',
    'node_modules/zod/index.js': 'module.exports = {};\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
  });
}

/** A small Python project (PEP 621 pyproject.toml with a console script, pytest configured). */
export function pythonProject(root: string): string {
  return writeTree(root, {
    'pyproject.toml': [
      '[project]',
      'name = "tiny-py"',
      'description = "A tiny Python tool" # inline comment',
      'dependencies = [',
      '  "requests>=2.31",',
      '  "click",',
      ']',
      '',
      '[project.optional-dependencies]',
      'dev = ["pytest>=8"]',
      '',
      '[project.scripts]',
      'tiny = "tiny_py.cli:main"',
      '',
      '[tool.pytest.ini_options]',
      'testpaths = ["tests"]',
      '',
    ].join('\n'),
    'src/tiny_py/__init__.py': '',
    'src/tiny_py/cli.py': 'import click\n\n\n# FIXME: handle errors\ndef main():\n    print("hi")\n',
    'tests/test_cli.py': 'from tiny_py.cli import main\n\n\ndef test_main():\n    main()\n',
  });
}

/**
 * A web-framework-like codebase: a request enters the server, goes through the router and the
 * middleware, and ends in a handler that uses a database module; an example app and docs beside it.
 * Nothing in it is about payments.
 */
export function frameworkProject(root: string): string {
  return writeTree(root, {
    'package.json': JSON.stringify({
      name: 'minifw',
      main: 'src/index.js',
      dependencies: { 'path-to-regexp': '^8' },
      devDependencies: { vitest: '^4' },
    }),
    'README.md': '# minifw\n\nA minimal web framework.\n',
    'src/index.js': "export { createServer } from './server.js';\n",
    'src/server.js': [
      "import { createServer as listen } from 'node:http';",
      "import { dispatchRequest } from './router.js';",
      '',
      'export function createServer(routes) {',
      '  return listen((req, res) => dispatchRequest(routes, req, res));',
      '}',
      '',
    ].join('\n'),
    'src/router.js': [
      "import { match } from 'path-to-regexp';",
      "import { runMiddleware } from './middleware/chain.js';",
      '',
      '/** Finds the route for a request and runs its middleware chain. */',
      'export function dispatchRequest(routes, req, res) {',
      '  const route = routes.find((r) => match(r.path)(req.url));',
      '  return runMiddleware(route, req, res);',
      '}',
      '',
    ].join('\n'),
    'src/middleware/chain.js': [
      "import { handleRequest } from '../handlers/request-handler.js';",
      '',
      'export function runMiddleware(route, req, res) {',
      '  for (const middleware of route.middleware) middleware(req, res);',
      '  return handleRequest(route, req, res);',
      '}',
      '',
    ].join('\n'),
    'src/handlers/request-handler.js': [
      "import { query } from '../db/pool.js';",
      '',
      'export async function handleRequest(route, req, res) {',
      '  const rows = await query(route.sql);',
      '  res.end(JSON.stringify(rows));',
      '}',
      '',
    ].join('\n'),
    'src/db/pool.js': 'export async function query(sql) {\n  return [sql];\n}\n',
    'examples/hello/app.js': "import { createServer } from '../../src/index.js';\n\ncreateServer([]).listen(3000);\n",
    'docs/guide.md': '# Guide\n\nEvery request goes through the router.\n',
    'test/router.test.js': "import { dispatchRequest } from '../src/router.js';\n",
  });
}

/**
 * A Python package whose token check runs main → verify.check_token → signature.signature_of, through a
 * module import (`from . import verify`) and a parenthesised import list: a flow to follow.
 */
export function pythonTokensProject(root: string): string {
  return writeTree(root, {
    'pyproject.toml': '[project]\nname = "tokens"\n\n[project.scripts]\ntokens = "tokens.cli:main"\n',
    'tokens/__init__.py': '',
    'tokens/cli.py': 'import sys\nfrom . import verify\n\n\ndef main():\n    verify.check_token(sys.argv[1])\n',
    'tokens/verify.py':
      'from .signature import (\n    signature_of,\n)\n\n\ndef check_token(token):\n    return signature_of(token) == token[-8:]\n',
    'tokens/signature.py':
      'import hashlib\n\n\ndef signature_of(token):\n    return hashlib.sha256(token.encode()).hexdigest()[:8]\n',
  });
}
