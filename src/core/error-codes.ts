/**
 * Every `code` a FedError can carry. Callers branch on these (the CLI, doctor, tests), so the list is
 * closed: a code that is not here does not compile, and neither does a comparison with one.
 */

/** The errnos fed explains to the user (src/infra/fs/fs-errors.ts); each becomes the code `FS_<errno>`. */
export type FileSystemErrno =
  | 'ENOSPC'
  | 'EDQUOT'
  | 'EROFS'
  | 'EMFILE'
  | 'ENFILE'
  | 'EIO'
  | 'EISDIR'
  | 'ENOTDIR'
  | 'EACCES'
  | 'EPERM'
  | 'ELOOP'
  | 'ENAMETOOLONG';

export type FedErrorCode =
  // Caller input, configuration, the federation root itself.
  | 'INVALID_INPUT'
  | 'CONFIG_INVALID'
  | 'NOT_A_FEDERATION'
  // Files fed manages, and the filesystem under them.
  | 'FILE_CORRUPT'
  | 'FILE_UNREADABLE'
  | 'FILE_NOT_REGULAR'
  | `FS_${FileSystemErrno}`
  // Concurrent writers: optimistic-concurrency conflicts, locks, operations already under way.
  | 'REGISTRY_CONFLICT'
  | 'REGISTRY_VERSION_EXHAUSTED'
  | 'LIFECYCLE_CONFLICT'
  | 'LOCK_TIMEOUT'
  | 'LOCK_LOST'
  | 'GIT_BUSY'
  | 'ONBOARDING_BUSY'
  | 'TEAM_BUSY'
  | 'SERVE_RUNNING'
  | 'HOST_NAME_TAKEN'
  // Backends: reaching one, what one supports, moving a federation between them.
  | 'BACKEND_UNAVAILABLE'
  | 'ARCHIVE_UNSUPPORTED'
  | 'MIGRATION_TARGET_NOT_EMPTY'
  // Teams in the registry and their branches.
  | 'UNKNOWN_TEAM'
  | 'UNKNOWN_SCHEDULE'
  | 'SCHEDULE_EXISTS'
  | 'DUPLICATE_TEAM'
  | 'TEAM_ARCHIVED'
  | 'PLAN_TEAM_UNUSABLE'
  | 'TEAM_NOT_ARCHIVED'
  | 'TEAM_CHANGED'
  | 'TEAM_ELSEWHERE'
  | 'UNKNOWN_HOST'
  | 'HOST_NOT_ALIVE'
  | 'HOST_STILL_ALIVE'
  | 'MOVE_UNSUPPORTED'
  // A worktree team moved: its commit not on the codebase's remote, the remote not reached, the commit not had here.
  | 'TEAM_COMMIT_UNPUSHED'
  | 'REMOTE_UNREACHABLE'
  | 'TEAM_COMMIT_UNAVAILABLE'
  | 'NO_CODEBASE_CLONE'
  // A worktree team back on a host: its worktree there cannot be brought to the commit it worked on elsewhere.
  | 'WORKTREE_BEHIND'
  | 'TEAM_NOT_ACTIVE'
  | 'TEAM_NOT_RUNNABLE'
  | 'TEAM_PAUSED'
  | 'ILLEGAL_TRANSITION'
  | 'BRANCH_EXISTS'
  | 'BRANCH_NOT_MERGED'
  | 'WORKTREE_FAILED'
  | 'TEAM_GIT_BROKEN'
  // Team workspaces.
  | 'WORKSPACE_EXISTS'
  | 'WORKSPACE_MISSING'
  | 'WORKSPACE_NOT_A_DIRECTORY'
  | 'WORKSPACE_NOT_FEDS'
  | 'WORKSPACE_OUTSIDE_ROOT'
  | 'WORKSPACE_NOT_ITS_OWN'
  | 'WORKSPACE_SYMLINK'
  // The runtime folders of the federation root (meta's boxes, delivery facts, journals, onboarding, chat).
  | 'RUNTIME_FOLDER_SYMLINK'
  // Signals and signal boxes.
  | 'UNKNOWN_SIGNAL'
  | 'INVALID_SIGNAL'
  | 'SIGNAL_ID_REUSED'
  | 'SENDER_NOT_CALLER'
  | 'REPLY_NOT_FROM_RECIPIENT'
  | 'TEAM_NOT_CALLER'
  | 'SIGNAL_FILE_MISSING'
  | 'SIGNAL_OUTBOX_FAILED'
  | 'NOT_A_SIGNAL_BOX'
  // Lifecycle machines, their snapshots and the actors that run them.
  | 'EVENT_NOT_ACCEPTED'
  | 'LIFECYCLE_ERROR'
  | 'LIFECYCLE_FINAL'
  | 'NO_LIFECYCLE'
  | 'SNAPSHOT_MACHINE'
  | 'SNAPSHOT_VERSION'
  // Launching a team's agent, its runs and their retries.
  | 'AGENT_COMMAND'
  | 'AGENT_HOME'
  | 'DENY_READ'
  | 'PROMPT_TOO_LONG'
  | 'PROMPT_NUL_BYTE'
  | 'NO_BUILT_IN_AGENT'
  | 'NO_MISSION'
  | 'NOTHING_TO_DO'
  | 'COMPLETION_REFUSED'
  | 'NO_RUN'
  | 'NOT_FAILED'
  | 'RUN_UNSETTLED'
  | 'FEDERATION_BUDGET_SPENT'
  | 'NETWORK_POLICY_UNAVAILABLE'
  // A sandboxed agent's fed commands, run by its launcher's broker.
  | 'AGENT_COMMAND_REFUSED'
  | 'BROKER_REFUSED'
  // Deliverables.
  | 'DELIVERABLE_INVALID'
  | 'DELIVERABLE_KEPT'
  // The coding archetype: team branches, review, merge.
  | 'NOT_A_CODING_TEAM'
  | 'NO_TEAM_BRANCH'
  | 'DETACHED_HEAD'
  | 'DIRTY_CHECKOUT'
  | 'NOT_IN_REVIEW'
  | 'NOT_APPROVED'
  | 'MERGE_FAILED'
  | 'BRANCH_MOVED'
  | 'NOTHING_TO_MERGE'
  | 'INDEX_LOCKED'
  | 'MERGE_INTERRUPTED'
  // The built-in agent (fed-agent) and `fed event`.
  | 'AGENT_ARCHETYPE'
  | 'AGENT_STATE'
  | 'FED_EVENT_FAILED'
  // Chat.
  | 'NO_CHAT_AGENT'
  | 'NO_CHAT_CONFIG'
  | 'CHAT_AGENT_FAILED'
  | 'BRIDGE_BUSY'
  // Federation hooks.
  | 'HOOK_FAILED'
  | 'HOOK_INVALID'
  | 'HOOK_MISSING'
  // Telemetry.
  | 'TELEMETRY_REGISTERED'
  // The dashboard (`fed ui`).
  | 'UI_NOT_BUILT';
