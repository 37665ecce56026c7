import { readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { CONFIG_FILE, DEFAULT_FEDERATION_REPORT } from '../../core/schema/config.js';
import { readFileBounded } from '../../infra/fs/read-file-bounded.js';

/**
 * Which files of a codebase a survey reads: everything except fed's own files (`.fed/` folders, and the
 * root's `federate.config.json` and federation report: fedRootFiles), git's, installed
 * packages, and what `.gitignore` files ignore (the root one and nested ones, each relative to its own
 * folder, the deepest match deciding as in git). Symbolic links to directories are not followed (they can
 * loop or leave the codebase); a dangling one is reported as unreadable. Paths are relative, with `/`.
 */
const ALWAYS_SKIPPED = new Set(['.git', '.fed', 'node_modules']);

export interface WalkedFile {
  path: string;
  absolute: string;
}

export interface Unreadable {
  path: string;
  reason: string;
}

export interface WalkResult {
  files: WalkedFile[];
  unreadable: Unreadable[];
}

interface Rules {
  base: string;
  matcher: Ignore;
}

/** Why a file or folder could not be read, in words. */
export function describeFsError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'dangling symbolic link';
  if (code === 'ELOOP') return 'symbolic link loop';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return code ?? (error as Error).message;
}

function isIgnored(rules: readonly Rules[], path: string, isDirectory: boolean): boolean {
  for (let i = rules.length - 1; i >= 0; i--) {
    const { base, matcher } = rules[i]!;
    const relative = base === '' ? path : path.slice(base.length + 1);
    const verdict = matcher.test(isDirectory ? `${relative}/` : relative);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** The rules in force inside `dir`: its parent's plus its own `.gitignore`, if it has a readable one. */
function rulesFor(
  absoluteDir: string,
  dir: string,
  inherited: readonly Rules[],
  entries: readonly Dirent[],
): readonly Rules[] {
  if (!entries.some((e) => e.name === '.gitignore' && e.isFile())) return inherited;
  try {
    return [...inherited, { base: dir, matcher: ignore().add(readFileSync(join(absoluteDir, '.gitignore'), 'utf8')) }];
  } catch {
    return inherited; // reported with the other unreadable files when the walk reaches it
  }
}

/**
 * fed's own files at the root, never studied as the codebase's: the config, and the federation report
 * `fed run` writes there — its name as the config sets it (`federationReport`), read as written, or the
 * default — so a run's report is not documented by the next run's deliverable as a source of the project.
 */
function fedRootFiles(root: string): Set<string> {
  let report: unknown;
  try {
    const read = readFileBounded(join(root, CONFIG_FILE), { maxBytes: 1024 * 1024 });
    const config: unknown = read.ok ? JSON.parse(read.bytes.toString('utf8')) : undefined;
    report = (config as { federationReport?: unknown } | undefined)?.federationReport;
  } catch {
    // No config, or one that is not JSON: its own checks say so; the default name is skipped.
  }
  return new Set([CONFIG_FILE, typeof report === 'string' ? report : DEFAULT_FEDERATION_REPORT]);
}

interface Visit {
  onFile: (file: WalkedFile) => void;
  onUnreadable: (entry: Unreadable) => void;
  /** Told about every file and directory kept, before descending into it. */
  onKept?: (path: string) => void;
  /** Descend into subdirectories (false visits only the top level). */
  recursive: boolean;
  /** fed's own files at the root (fedRootFiles). */
  fedFiles: ReadonlySet<string>;
}

function walkDirectory(root: string, dir: string, inherited: readonly Rules[], visit: Visit): void {
  const absoluteDir = dir === '' ? root : join(root, dir);
  let entries: Dirent[];
  try {
    entries = readdirSync(absoluteDir, { withFileTypes: true });
  } catch (error) {
    visit.onUnreadable({ path: `${dir || '.'}/`, reason: describeFsError(error) });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rules = rulesFor(absoluteDir, dir, inherited, entries);
  for (const entry of entries) {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    const absolute = join(absoluteDir, entry.name);
    const isDirectory = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        const target = statSync(absolute);
        isFile = target.isFile();
        if (target.isDirectory()) continue;
      } catch (error) {
        if (!isIgnored(rules, path, false)) visit.onUnreadable({ path, reason: describeFsError(error) });
        continue;
      }
    }
    if (
      (isDirectory && ALWAYS_SKIPPED.has(entry.name)) ||
      (dir === '' && visit.fedFiles.has(entry.name)) ||
      isIgnored(rules, path, isDirectory)
    )
      continue;
    if (isDirectory) {
      visit.onKept?.(path);
      if (visit.recursive) walkDirectory(root, path, rules, visit);
    } else if (isFile) {
      visit.onKept?.(path);
      visit.onFile({ path, absolute });
    }
  }
}

export function walkCodebase(root: string): WalkResult {
  const result: WalkResult = { files: [], unreadable: [] };
  walkDirectory(root, '', [], {
    recursive: true,
    fedFiles: fedRootFiles(root),
    onFile: (file) => result.files.push(file),
    onUnreadable: (entry) => result.unreadable.push(entry),
  });
  return result;
}

/**
 * The top-level files and folders a survey would study: the information sources of the plan. Unreadable
 * entries are sources too — the scan tries them and reports what it could not read.
 */
export function topLevelSources(root: string): string[] {
  const sources: string[] = [];
  const add = (path: string) => {
    const source = path.replace(/\/$/, '');
    if (source !== '') sources.push(source);
  };
  walkDirectory(root, '', [], {
    recursive: false,
    fedFiles: fedRootFiles(root),
    onFile: () => {},
    onUnreadable: (entry) => add(entry.path),
    onKept: add,
  });
  return sources;
}
