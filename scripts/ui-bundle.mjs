/**
 * The dashboard page (`fed ui`) into dist/ui/, served by the server under /assets/ (index.html for the page
 * routes): the shell, one ES module for the browser with everything it needs bundled in (the page makes no
 * request off the machine, and its strict CSP allows no inline script or style), one stylesheet, and the
 * lifecycle diagrams laid out from the compiled machine catalog (so this runs after tsc).
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';
import { writeDiagrams } from './ui-diagrams.mjs';

const CLIENT = 'src/apps/ui/client';
const OUT = 'dist/ui';

export async function buildUi() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  copyFileSync(`${CLIENT}/index.html`, `${OUT}/index.html`);
  await build({
    // app.js and app.css, the names the shell loads.
    entryPoints: [
      { in: `${CLIENT}/main.ts`, out: 'app' },
      { in: `${CLIENT}/app.css`, out: 'app' },
    ],
    outdir: OUT,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    // Fonts and images stay out: the page uses the system font stack, and CSP allows nothing external.
    loader: { '.woff2': 'empty', '.woff': 'empty' },
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: `${CLIENT}/tsconfig.json`,
    // The Markdown parser decodes `&name;` through innerHTML in its browser build; the table build decodes
    // without touching the DOM, so no Markdown input ever goes near an HTML parser.
    alias: { 'decode-named-character-reference': './node_modules/decode-named-character-reference/index.js' },
  });
  await writeDiagrams('dist', `${OUT}/diagrams`);
}
