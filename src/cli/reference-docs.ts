import { renderConfigReference } from '../apps/docs/config-reference.js';
import type { CliIo } from './cli-io.js';
import { renderCliReference } from './cli-reference.js';
import { buildProgram } from './program.js';

/** The generated pages under docs/reference/, by path relative to the package root. */
export const REFERENCE_DOCS_DIR = 'docs/reference';

/** Nothing is printed: the program is only built (every command registered) to be read. */
const SILENT_IO: CliIo = { stdout: () => {}, stderr: () => {}, terminal: () => {}, env: {}, cwd: '/', isTTY: false };

/** Each generated page's path (relative to the package root) and content, in memory; `npm run docs` writes them. */
export async function renderReferenceDocs(): Promise<Map<string, string>> {
  // No argv: the program registers every command, as for `fed --help`.
  const program = await buildProgram(SILENT_IO, []);
  return new Map([
    [`${REFERENCE_DOCS_DIR}/cli.md`, renderCliReference(program)],
    [`${REFERENCE_DOCS_DIR}/config.md`, renderConfigReference()],
  ]);
}
