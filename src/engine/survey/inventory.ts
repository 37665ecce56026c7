import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { extname } from 'node:path';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';
import { findGoImports, findPythonImports, findScriptImports } from './import-scan.js';
import { isMachineWritten } from './machine-written.js';
import { BINARY_EXTENSIONS, languageOf, type Language } from './languages.js';
import { findTodoMarkers, type TodoMarker } from './source-scan.js';
import { isTestFile } from './test-file-names.js';
import { describeFsError, type Unreadable, type WalkResult } from './walk-codebase.js';

/** One readable file of the codebase and what the survey measured in it. */
export interface FileRecord {
  path: string;
  bytes: number;
  language: Language | null;
  /** Lines of text; 0 for binary files and files too large to analyse. */
  lines: number;
  binary: boolean;
  /** False for binary files and files over MAX_ANALYSED_BYTES: read only far enough to know they are readable. */
  analysed: boolean;
  todos: TodoMarker[];
  /** Module specifiers as written (TypeScript/JavaScript, Python and Go files). */
  imports: string[];
  /** Starts a program by the language's own rule: Go `package main` with `func main()`, Python `if __name__ == "__main__":`. */
  runsAsProgram: boolean;
  /** Test code, by folder or name (decided once here: every later step asks). */
  test: boolean;
  /** A lock file, generated or vendored code: counted, but it sizes nothing (see machine-written.ts). */
  machineWritten: boolean;
}

export interface Inventory {
  files: FileRecord[];
  unreadable: Unreadable[];
}

/** Bigger files are generated or data (bundles, dumps, lock files): counted, not analysed. */
export const MAX_ANALYSED_BYTES = 2 * 1024 * 1024;
const PROBE_BYTES = 8000;

/** The languages whose imports the survey reads, by Language.name. */
export const IMPORT_READERS: Record<string, (text: string) => string[]> = {
  TypeScript: findScriptImports,
  JavaScript: findScriptImports,
  Python: findPythonImports,
  Go: findGoImports,
};

const GO_PACKAGE_MAIN = /^package main\b/m;
const GO_FUNC_MAIN = /^func main\(\)/m;
const PYTHON_MAIN = /^if __name__ == ['"]__main__['"]\s*:/m;

function countLines(buffer: Buffer): number {
  if (buffer.length === 0) return 0;
  let lines = 0;
  for (let at = buffer.indexOf(10); at !== -1; at = buffer.indexOf(10, at + 1)) lines++;
  return buffer[buffer.length - 1] === 10 ? lines : lines + 1;
}

/** Read a file whole, or only its first bytes when it is known binary or too large; throws when unreadable. */
function readFile(absolute: string, path: string): { buffer: Buffer; bytes: number; whole: boolean } {
  const fd = openSync(absolute, 'r');
  try {
    const bytes = fstatSync(fd).size;
    const whole = bytes <= MAX_ANALYSED_BYTES && !BINARY_EXTENSIONS.has(extname(path).toLowerCase());
    const buffer = Buffer.allocUnsafe(whole ? bytes : Math.min(bytes, PROBE_BYTES));
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return { buffer: buffer.subarray(0, filled), bytes, whole };
  } finally {
    closeSync(fd);
  }
}

function measure(path: string, buffer: Buffer, bytes: number, whole: boolean): FileRecord {
  const language = languageOf(path);
  const binary = BINARY_EXTENSIONS.has(extname(path).toLowerCase()) || buffer.subarray(0, PROBE_BYTES).includes(0);
  const record: FileRecord = {
    path,
    bytes,
    language,
    lines: 0,
    binary,
    analysed: whole && !binary,
    todos: [],
    imports: [],
    runsAsProgram: false,
    test: isTestFile(path),
    machineWritten: isMachineWritten(path, binary ? '' : buffer.subarray(0, 1024).toString('utf8')),
  };
  if (!record.analysed) return record;
  record.lines = countLines(buffer);
  if (language?.kind === 'code') {
    const text = buffer.toString('utf8');
    record.todos = findTodoMarkers(text);
    const readImports = IMPORT_READERS[language.name];
    if (readImports) record.imports = readImports(text);
    if (language.name === 'Go') record.runsAsProgram = GO_PACKAGE_MAIN.test(text) && GO_FUNC_MAIN.test(text);
    else if (language.name === 'Python') record.runsAsProgram = PYTHON_MAIN.test(text);
  }
  return record;
}

/** Read every walked file once; a file that cannot be read joins the walk's unreadable entries. */
export function takeInventory(walk: WalkResult): Inventory {
  const files: FileRecord[] = [];
  const unreadable = [...walk.unreadable];
  for (const file of walk.files) {
    try {
      const { buffer, bytes, whole } = readFile(file.absolute, file.path);
      files.push(measure(file.path, buffer, bytes, whole));
    } catch (error) {
      unreadable.push({ path: file.path, reason: describeFsError(error) });
    }
  }
  return { files, unreadable };
}

/**
 * The text of a file the scan analysed, read again for excerpts and mission answers: bounded like the scan
 * and never blocking (a file swapped for a FIFO since the scan is skipped); undefined when it changed
 * into something that cannot be read, or is gone.
 */
export function readAnalysedText(path: string): string | undefined {
  try {
    const read = readFileBounded(path, { maxBytes: MAX_ANALYSED_BYTES });
    return read.ok ? read.bytes.toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}
