/**
 * One problem `fed doctor` found: what and where, how to fix it, and whether `--fix` can (and did). A
 * check returns findings with a `repair` when fed can fix the problem itself, safely and idempotently.
 */
export type DoctorCheck =
  | 'backend'
  | 'registry'
  | 'journal'
  | 'schedule'
  | 'workspace'
  | 'marker'
  | 'runtime-link'
  | 'state'
  | 'onboarding'
  | 'orphan-workspace'
  | 'stale-lock'
  | 'git-lock'
  | 'temp-file'
  | 'signal-id'
  | 'folder'
  | 'permission'
  | 'agent-cli'
  | 'config';

export interface DoctorFinding {
  check: DoctorCheck;
  /** The team concerned, if any. */
  team?: string;
  /** The file or folder the finding is about. */
  path: string;
  problem: string;
  /** What fixes it: what `--fix` does, or what to do by hand. */
  fix: string;
  /** `fed doctor --fix` can fix it. */
  fixable: boolean;
  /** Set by `--fix`: it was fixed. */
  fixed: boolean;
  /** Set by `--fix` when fixing failed: why. */
  fixError?: string;
}

/** A finding as a check produces it, with the repair `--fix` runs. */
export interface PendingFinding extends Omit<DoctorFinding, 'fixable' | 'fixed' | 'fixError'> {
  repair?: () => void | Promise<void>;
}

/** What a backend's own `fed doctor` checks found (its adapter's `doctor`, src/adapters/adapter.ts). */
export interface BackendChecks {
  findings: PendingFinding[];
  /** Worth knowing, not a problem (e.g. what a power loss could cost). */
  notes: string[];
  /** False when the backend cannot be reached: the checks that read through it are skipped. */
  reachable: boolean;
}
