import { describe, expect, it } from 'vitest';
import { findGoImports, findPythonImports, findScriptImports as findImports } from 'fed/testing';
import { findTodoMarkers } from '../../../src/engine/survey/source-scan.js';

describe('TODO markers', () => {
  it('count only as the first word of a comment', () => {
    const text = [
      '// TODO: first',
      'const TODO_TAGS = ["TODO"];',
      '  # FIXME handle errors',
      ' * HACK(bob): works around a bug',
      '/* XXX remove */',
      '// a comment that mentions TODO in passing',
      'let FIXMEs = 1; // NOTE not a marker',
      '<!-- TODO: docs -->',
      "const example = '// TODO: in a string';",
      'x = 1; // FIXME: after code',
    ].join('\n');
    expect(findTodoMarkers(text).map((m) => [m.line, m.tag, m.text])).toEqual([
      [1, 'TODO', 'TODO: first'],
      [3, 'FIXME', 'FIXME handle errors'],
      [4, 'HACK', 'HACK(bob): works around a bug'],
      [5, 'XXX', 'XXX remove'],
      [8, 'TODO', 'TODO: docs'],
      [10, 'FIXME', 'FIXME: after code'],
    ]);
  });

  it('shortens long markers', () => {
    const [marker] = findTodoMarkers(`// TODO ${'x'.repeat(200)}`);
    expect(marker?.text).toHaveLength(100);
    expect(marker?.text.endsWith('...')).toBe(true);
  });
});

describe('imports of TypeScript/JavaScript modules', () => {
  it('finds static, type-only, re-export, side-effect, dynamic and require forms once each', () => {
    const text = [
      "import fs from 'node:fs';",
      "import { a, type B } from './a.js';",
      'import {',
      '  c,',
      '  d,',
      "} from '../c';",
      "import * as e from 'e-pkg';",
      "import type { F } from '@scope/f/sub';",
      "export * from './g.js';",
      "export { h } from './h.js';",
      "import './side-effect.css';",
      "const lazy = await import('./lazy.js');",
      "const old = require('legacy');",
      "import fs2 from 'node:fs';",
    ].join('\n');
    expect(findImports(text).sort()).toEqual(
      [
        '../c',
        './a.js',
        './g.js',
        './h.js',
        './lazy.js',
        './side-effect.css',
        '@scope/f/sub',
        'e-pkg',
        'legacy',
        'node:fs',
      ].sort(),
    );
  });
});

describe('imports in Python and Go, and JSX', () => {
  it('Python: plain, aliased, relative, parenthesised and continued imports', () => {
    const text = [
      'import os, sys as system',
      'import acme.core.text  # comment',
      'from . import views',
      'from ..models import (',
      '    User,',
      '    Group as G,',
      ')',
      'from pkg.sub import \\',
      '    helper',
      'from star import *',
      'x = "import not_an_import"',
    ].join('\n');
    expect(findPythonImports(text)).toEqual([
      'os',
      'sys',
      'acme.core.text',
      '.views',
      '..models.User',
      '..models.Group',
      'pkg.sub.helper',
      'star',
    ]);
  });

  it('Go: single imports, aliased and blank ones in a block, nothing after the first declaration', () => {
    const text =
      'package main\n\nimport "fmt"\n\nimport (\n\tlog "github.com/sirupsen/logrus"\n\t_ "embed"\n\t"example.com/acme/api" // the API\n)\n\nfunc main() {\n\tfmt.Println("import \\"not/this\\"")\n}\n';
    expect(findGoImports(text)).toEqual(['fmt', 'github.com/sirupsen/logrus', 'embed', 'example.com/acme/api']);
  });

  it('JSX, which the ES module lexer refuses, is still read', () => {
    const text =
      "import React from 'react';\nimport { Button } from './button.jsx';\n\nexport const App = () => <Button label={`hi`} />;\n";
    expect(findImports(text)).toEqual(['react', './button.jsx']);
  });
});
