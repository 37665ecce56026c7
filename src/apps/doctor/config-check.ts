import { configWithoutFile, loadFederationConfig } from '../../adapters/index.js';
import { ConfigValidationError, FedError } from '../../core/errors.js';
import { federationPaths } from '../../core/layout.js';
import { openFederation, type Federation } from '../../engine/context.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import { unreadableFix } from './unreadable-fix.js';

/** What `fed doctor` checks: the federation at `root`, opened with its config — or as far as it can be without. */
export interface DoctorSubject {
  root: string;
  /** The federation on its backend; none when a config that does not load leaves the backend unknown. */
  fed: Federation | undefined;
  /**
   * Set when the config does not load: the finding saying why, and a note saying what was checked without
   * it. The checks that need the config are skipped, and `--fix` repairs nothing: a repair judged on a
   * guessed backend could remove what the real one still holds (a workspace, an onboarding).
   */
  brokenConfig?: { finding: PendingFinding; note: string };
}

/** The checks that need the config, skipped while it does not load. */
const SKIPPED =
  "the agent CLI, the schedules, the sandbox and network notes, the backend's own checks, the other hosts";

/**
 * The federation at `root` for `fed doctor`, which needs no valid config: a config that does not load is
 * a finding, and the federation is checked as a file federation with the defaults when nothing says it is
 * on another backend (configWithoutFile), else only what lies under the root without a backend.
 */
export function openDoctorSubject(root: string, env: NodeJS.ProcessEnv): DoctorSubject {
  let loaded;
  try {
    loaded = loadFederationConfig(root, env);
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    const fallback = configWithoutFile(root, env);
    const note = fallback
      ? `the config does not load: checked as a file federation with the default settings (its registry is here, and neither the config nor the environment names another backend), without what needs the config (${SKIPPED}); fed doctor --fix repairs nothing until the config loads`
      : `the config does not load, and which backend it selects is not known (it or the environment names one other than files, or no registry file is here): checked without what needs the config or the backend (${SKIPPED}, the registry, the journal, the teams and their signals); fed doctor --fix repairs nothing until the config loads`;
    return {
      root,
      fed: fallback && openFederation(root, { env, config: fallback, readCopied: true }),
      brokenConfig: { finding: configFinding(root, error), note },
    };
  }
  return { root, fed: openFederation(root, { env, config: loaded, readCopied: true }) };
}

function configFinding(root: string, error: FedError): PendingFinding {
  return {
    check: 'config',
    // The environment's overrides are part of the config as it loads: a bad one is named there.
    path: error instanceof ConfigValidationError ? error.file : federationPaths(root).config,
    problem: error.message,
    fix: unreadableFix(
      error,
      'correct what it names (fed config show checks it again), then run fed doctor again; fed never rewrites the config',
    ),
  };
}
