import type { Federation } from '../../engine/context.js';
import { accountLimitPath, federationPaths } from '../../core/layout.js';
import { toJsonText } from '../../core/json-text.js';
import { accountLimitSchema, type AccountLimit } from '../../core/schema/account-limit.js';
import type { FederationConfig } from '../../core/schema/config.js';
import { writeFileAtomic } from '../../infra/fs/atomic-write.js';
import { readJsonFile } from '../../infra/fs/read-json-file.js';

/**
 * One account, one limit: the rate limit a team met on a CLI account is kept on disk until it resets
 * (`.fed/launch/accounts/<account>.json`), so a launch of any team on that account — from this process
 * or a later one — pauses until the same moment instead of walking into the same limit.
 */

/** The CLI account a launch uses: `agent.account`, else the preset's name (one login per CLI). */
export function accountOf(config: FederationConfig, presetName: string): string {
  return config.agent.account ?? presetName;
}

/**
 * The limit `account` is under at `now`, or undefined (none, or its reset has passed). A file that
 * cannot be read proves no limit (it is replaced when the next one is met), and `warnings` says so.
 */
export function activeAccountLimit(
  fed: Federation,
  account: string,
  now: Date,
  warnings: string[] = [],
): AccountLimit | undefined {
  const file = accountLimitPath(fed.root, account);
  let limit: AccountLimit | undefined;
  try {
    limit = readJsonFile(file, accountLimitSchema);
  } catch (error) {
    warnings.push(
      `the rate limit of account ${account} cannot be read, so none is assumed: ${(error as Error).message}`,
    );
    return undefined;
  }
  // A limit whose reset has passed is simply ignored: removing it could race a team recording a new one.
  return limit && Date.parse(limit.resumeAt) > now.getTime() ? limit : undefined;
}

/** Keep the limit a team met for its account (the later reset wins when two teams met it). */
export function recordAccountLimit(fed: Federation, limit: AccountLimit): void {
  const known = activeAccountLimit(fed, limit.account, new Date(limit.recordedAt));
  if (known && Date.parse(known.resumeAt) >= Date.parse(limit.resumeAt)) return;
  fed.folderForWrite(federationPaths(fed.root).accountLimits);
  writeFileAtomic(accountLimitPath(fed.root, limit.account), toJsonText(limit));
}
