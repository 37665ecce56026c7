import type { FedErrorCode, FileSystemErrno } from './error-codes.js';
import { META, TEAM_ID_PATTERN } from './party-names.js';

/**
 * Typed errors of the library. Every error carries a stable `code` so callers can branch on it, and
 * `refusal` says whether it is the caller's input or a refused operation (the CLI exits 2) rather than
 * an unexpected failure (exit 1). Messages name the file, field or team and say how to fix it.
 * The codes are the closed list of src/core/error-codes.ts.
 */
export class FedError extends Error {
  readonly code: FedErrorCode;
  readonly refusal: boolean;

  constructor(code: FedErrorCode, message: string, options: { refusal?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.refusal = options.refusal ?? true;
  }
}

/** One problem found while validating a file or value: where it is and what was expected. */
export interface ValidationProblem {
  path: string;
  message: string;
}

/** Raised for invalid `federate.config.json` content or environment overrides (docs/design/spec.md §7). */
export class ConfigValidationError extends FedError {
  readonly file: string;
  readonly problems: ValidationProblem[];

  constructor(file: string, problems: ValidationProblem[]) {
    super('CONFIG_INVALID', `${file} is invalid:\n${problems.map((p) => `  - ${p.path}: ${p.message}`).join('\n')}`);
    this.file = file;
    this.problems = problems;
  }
}

/** A file fed manages exists but cannot be used as it is; it is never reset or overwritten. */
export class CorruptFileError extends FedError {
  readonly file: string;
  /** What is wrong with it, without the advice (for a caller that can repair it, e.g. fed doctor --fix). */
  readonly problem: string;

  constructor(file: string, problem: string) {
    super(
      'FILE_CORRUPT',
      `${file} is corrupt: ${problem}. fed will not overwrite it; restore it from a backup or fix it by hand.`,
    );
    this.file = file;
    this.problem = problem;
  }
}

/** Input given by the caller (argument, option, value) is not acceptable. */
export class InvalidInputError extends FedError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

/** The operation conflicts with the current state (duplicate, illegal transition, already running). */
export class RefusedError extends FedError {
  constructor(code: FedErrorCode, message: string) {
    super(code, message);
  }
}

export class UnknownTeamError extends FedError {
  readonly team: string;

  constructor(team: string, known: readonly string[]) {
    const hint = known.length ? `registered teams: ${known.join(', ')}` : 'no team is registered yet';
    super(
      'UNKNOWN_TEAM',
      team.trim() === ''
        ? `no team named: the name is empty (${hint}); give a team id`
        : team === META
          ? `"${META}" is the meta coordinator, not a team (${hint}); name a team`
          : TEAM_ID_PATTERN.test(team)
            ? `unknown team "${team}" (${hint}); onboard it with: fed team onboard ${team}`
            : `unknown team "${team}" (${hint}); a team id is a slug of lowercase letters, digits and single hyphens`,
    );
    this.team = team;
  }
}

/** The federation root could not be found or is not initialised. */
export class NotAFederationError extends FedError {
  constructor(message: string) {
    super('NOT_A_FEDERATION', message);
  }
}

/** A file fed must read is not a regular file of a sane size (a FIFO, device, directory, or huge file). */
export class UnreadableFileError extends FedError {
  readonly file: string;
  /** The errno opening or reading it failed with, if it did: whose fix is not the file's content (EACCES). */
  readonly errno: string | undefined;

  constructor(file: string, problem: string, fix: string, errno?: string) {
    super('FILE_UNREADABLE', `${file} cannot be used: ${problem}; ${fix}`);
    this.file = file;
    this.errno = errno;
  }
}

/**
 * A file fed appends to (a log, a journal) is not a regular file: a symbolic link — which could point into
 * the codebase an agent may only read — a FIFO, a device or a directory. fed never writes through it.
 */
export class NotRegularFileError extends FedError {
  readonly file: string;

  constructor(file: string, problem: string, fix: string) {
    super('FILE_NOT_REGULAR', `${file} is ${problem}, not a regular file; fed does not write through it. ${fix}`);
    this.file = file;
  }
}

/**
 * A filesystem call failed for a reason the user must deal with (disk full, read-only, a directory where a
 * file belongs, too many open files): names the path, what happened and what to do. `refusal` is true
 * (exit 2) when the path is the wrong kind of thing — the user's layout — and false (exit 1) when the
 * environment failed.
 */
export class FileSystemError extends FedError {
  readonly path: string | undefined;
  readonly errno: FileSystemErrno;

  constructor(errno: FileSystemErrno, path: string | undefined, message: string, refusal: boolean, cause: unknown) {
    super(`FS_${errno}`, message, { refusal, cause });
    this.path = path;
    this.errno = errno;
  }
}

/**
 * Another writer committed the registry since this one read it: re-read and retry (like HTTP 409).
 * Every registry store throws it (src/ports/registry-store.ts); `updateRegistry` retries on it.
 * `Current` is the registry's type: a type parameter, so that this module (which the dashboard's browser
 * code also compiles) does not depend on the registry schema and its Node imports.
 */
export class RegistryConflictError<Current = unknown> extends FedError {
  readonly expected: number;
  readonly actual: number;
  /** The registry at `actual`, validated, when the store read it to find the conflict: a retry starts from it. */
  readonly current: Current | undefined;

  constructor(location: string, expected: number, actual: number, attempts?: number, current?: Current) {
    super(
      'REGISTRY_CONFLICT',
      attempts === undefined
        ? `${location} changed underneath this write (read lockVersion ${expected}, now ${actual}); re-read and retry`
        : `${location} kept changing underneath this write; gave up after ${attempts} attempts (lockVersion ${actual}). Try again.`,
    );
    this.expected = expected;
    this.actual = actual;
    this.current = current;
  }
}

/** A team's lifecycle envelope changed since it was read (compare-and-swap of src/ports/lifecycle-store.ts). */
export class LifecycleConflictError extends FedError {
  constructor(team: string, location: string) {
    super(
      'LIFECYCLE_CONFLICT',
      `the lifecycle state of team "${team}" (${location}) changed underneath this write; nothing was written — read it again and retry`,
    );
  }
}

/**
 * The configured backend cannot be used: its server is unreachable, refuses the credentials, or lacks
 * what fed needs (JetStream). Names the servers and says how to start or point at one; the CLI exits 2.
 */
export class BackendUnavailableError extends FedError {
  readonly servers: readonly string[];

  constructor(servers: readonly string[], message: string, cause?: unknown) {
    super('BACKEND_UNAVAILABLE', message, { cause });
    this.servers = servers;
  }
}
