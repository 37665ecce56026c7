import { readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gitSucceeds } from '../../engine/registry/git.js';
import { isTempFileName, unlinkQuietly } from '../../infra/fs/atomic-write.js';
import { readPermissionFix } from '../../infra/fs/fs-errors.js';
import { inspectLock, removeAbandonedLock, removeInspectedLock } from '../../infra/fs/lock.js';
import { processIsAlive } from '../../infra/fs/process-identity.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';

/** A temp file no write of fed keeps open this long: one left by a killed writer even if its pid was reused. */
const TEMP_FILE_MAX_AGE_MS = 10 * 60_000;

/** Lock and lease files in `dir` (and their takeover guards). */
export function lockFilesIn(dir: string): string[] {
  return listDir(dir)
    .filter((entry) => entry.isFile() && /\.(lock|lease)(\.takeover)?$/.test(entry.name))
    .map((entry) => join(dir, entry.name));
}

/** A lock whose holder is gone, or whose owner file cannot be read, blocks nobody for long but is still litter — or worse. */
export function checkLock(path: string, team?: string): PendingFinding | undefined {
  const report = inspectLock(path, { staleMs: Number.POSITIVE_INFINITY });
  if (!report) return undefined;
  const owner = report.owner;
  if (owner === undefined) {
    return {
      check: 'stale-lock',
      team,
      path,
      problem: `lock file ${path} has no readable owner (corrupt or from an older fed)`,
      fix: 'remove it (fed doctor --fix) once no fed command is running',
      repair: () => void removeInspectedLock(report),
    };
  }
  if (report.holder === 'alive') return undefined;
  if (report.holder === 'unchecked') {
    return {
      check: 'stale-lock',
      team,
      path,
      problem: `lock ${path} is held by pid ${owner.pid} on another host (${owner.host}) since ${owner.acquiredAt}; fed cannot check that process from here`,
      fix: `check on ${owner.host} that pid ${owner.pid} is not a fed command, then remove the file by hand`,
    };
  }
  return {
    check: 'stale-lock',
    team,
    path,
    problem: `lock ${path} is held by pid ${owner.pid} since ${owner.acquiredAt}, and that process is gone`,
    fix: 'remove it (fed doctor --fix; the next fed command that needs it would also take it over)',
    repair: () => void removeAbandonedLock(path, { staleMs: Number.POSITIVE_INFINITY }),
  };
}

/**
 * Federation folders that are something else (a file, a FIFO): every command that writes into one fails
 * until it is moved aside. A folder not made yet is fine — fed creates it when it first needs it.
 */
export function checkFolders(dirs: readonly string[]): PendingFinding[] {
  return dirs.flatMap((path): PendingFinding[] => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined || stat.isDirectory()) return [];
    return [folderFinding(path, stat)];
  });
}

/**
 * Why `folder` of `team` could not be listed (`error`): a file on its path (an ENOTDIR) — the folder
 * itself or one above it, such as a team's `.fed/signals` — reported as checkFolders reports one, naming
 * that file; nothing when a folder is there again. Any other error is not the layout's and is thrown.
 */
export function checkFolderPath(folder: string, error: unknown, team?: string): PendingFinding[] {
  if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  // Only now, with a listing failed, is the path looked at part by part, up to the nearest part that exists.
  for (let path = folder; dirname(path) !== path; path = dirname(path)) {
    let stat: Stats;
    try {
      stat = statSync(path);
    } catch (failed) {
      if (['ENOENT', 'ENOTDIR'].includes((failed as NodeJS.ErrnoException).code ?? '')) continue;
      throw failed;
    }
    return stat.isDirectory() ? [] : [folderFinding(path, stat, team)];
  }
  return [];
}

/**
 * A path the user fed runs as may not read (EACCES, EPERM: an agent run as another user made a folder
 * its own): what the checks could not look at, and that its permissions are the fix; undefined for any
 * other error. The team's other checks are not made: each would fail on it again.
 */
export function permissionFinding(error: unknown, team?: string): PendingFinding | undefined {
  const { code, path, syscall } = error as NodeJS.ErrnoException;
  const fix = readPermissionFix(code);
  if (fix === undefined || path === undefined) return undefined;
  return {
    check: 'permission',
    ...(team === undefined ? {} : { team }),
    path,
    problem: `${path}: permission denied (${syscall}) [${code}]; fed cannot check what is there`,
    fix,
  };
}

function folderFinding(path: string, stat: Stats, team?: string): PendingFinding {
  const kind = stat.isFile() ? 'a file' : 'not a folder';
  return {
    check: 'folder',
    ...(team === undefined ? {} : { team }),
    path,
    problem: `${path} is ${kind} where fed keeps a folder; commands that write there fail`,
    fix: `move it aside (mv ${path} ${path}.bak); fed creates the folder again when it needs it`,
  };
}

/** The pid a temp file name carries (`.<name>.<pid>.<random>.tmp`, see tempPathFor). */
function writerPid(name: string): number | undefined {
  const match = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** A file git tracks is someone's, whatever its name: fed never commits a temp file. */
function trackedByGit(path: string): boolean {
  return gitSucceeds(dirname(path), ['ls-files', '--error-unmatch', '--', basename(path)]);
}

/**
 * Temp files killed writers left below `dir` (fed's writes go through a temp file that is renamed or
 * linked into place; a kill in between leaves it, hidden but taking space). A temp file of a writer that
 * is still running is left alone, and so is a file git tracks. Folders named in `skip` are not entered;
 * links are never followed.
 */
export function findLeftoverTempFiles(
  dir: string,
  {
    skip = new Set<string>(),
    recursive = true,
    team,
  }: { skip?: ReadonlySet<string>; recursive?: boolean; team?: string } = {},
): PendingFinding[] {
  const findings: PendingFinding[] = [];
  const walk = (folder: string) => {
    for (const entry of listDir(folder)) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (recursive && !skip.has(path)) walk(path);
        continue;
      }
      if (!entry.isFile() || !isTempFileName(entry.name)) continue;
      const stat = statSync(path, { throwIfNoEntry: false });
      if (!stat) continue;
      const pid = writerPid(entry.name);
      const ageMs = Date.now() - stat.mtimeMs;
      if (pid !== undefined && processIsAlive(pid) && ageMs < TEMP_FILE_MAX_AGE_MS) continue;
      if (trackedByGit(path)) continue;
      findings.push({
        check: 'temp-file',
        team,
        path,
        problem: `temp file ${path} left by a killed writer${pid === undefined ? '' : ` (pid ${pid})`}`,
        fix: 'remove it (fed doctor --fix); the file it was writing was either completed or never changed',
        repair: () => unlinkQuietly(path),
      });
    }
  };
  walk(dir);
  return findings;
}

function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
}
