/**
 * The testing entry (`import … from 'fed/testing'`): what fed's own tests need beyond the library entry
 * (`fed`, src/index.ts): the internals a test reads, plants, breaks or drives to hold fed to its
 * invariants. Tests import fed only through the entries (or the modules a unit test is named after:
 * CONTRIBUTING.md, "How tests import fed"), so a source file can move without editing tests: only this
 * file. Nothing here is a promise to users, and nothing in src/ or packages/*\/src imports it
 * (eslint.config.mjs). Add a name when a test needs it, in the group that says why; never `export *`.
 */

// The CLI in-process and the package it ships in: tests run commands without a process, check the
// command list the bundles are cut by, and find the built files and bins.
export { buildProgram, runCli } from './cli/program.js';
export { COMMAND_NAMES, OWN_BUNDLE_COMMANDS } from './cli/command-names.js';
export { TIERING_ENV } from './infra/v8/tiering.js';
export type { CliIo } from './cli/cli-io.js';
export { renderReferenceDocs } from './cli/reference-docs.js';
export { packageBins, packageRoot, packageVersion } from './infra/package-info.js';

// A file federation's files, as the file backend lays them out: tests read, plant and break them to see
// what fed does with what is on disk (the paths are every backend's plus the file backend's own).
export { federationPaths, workspacePaths } from './adapters/file/file-layout.js';
export { accountLimitPath, FED_DIR, onboardingPaths, teamWorkspacePath } from './core/layout.js';
export { openFileBackend } from './adapters/file/open-file-backend.js';
export { commitRegistry, readRegistry, updateRegistryFile } from './adapters/file/registry-file.js';
export {
  parseValidatedRegistry,
  RegistryValidation,
  REMEMBERED_FROM_BYTES,
  validWrite,
} from './adapters/file/registry-validation.js';
export {
  appendJournalLines,
  readEnvelope,
  readIdentifiedEnvelope,
  readJournalTail,
  writeEnvelope,
} from './adapters/file/state-files.js';
export { FOLD_FROM_BYTES, readTeamActivity } from './adapters/file/team-activity-file.js';
export { deliveryDirectory, FileDeliveryFactStore } from './adapters/file/file-delivery-fact-store.js';
export { FileFederationJournal } from './adapters/file/file-federation-journal.js';
export { CheckedRootFolders } from './adapters/checked-root-folders.js';

// The file backend's signal boxes: names, reads, acks, quarantine and the archive, below the transport's
// contract, where the invariants (no clobber, never lose a signal) are measured.
export {
  ACK_FILE_SUFFIX,
  ackFileName,
  isSignalFileName,
  signalFileName,
} from './adapters/file/signals/signal-file-name.js';
export { QUIET_DIRECTORY_MS, readSignalBox, SignalBoxReader } from './adapters/file/signals/read-signals.js';
export { writeAck } from './adapters/file/signals/ack-signal.js';
export { quarantineDirectory, quarantineSignalFile } from './adapters/file/signals/quarantine.js';
export { resolveSignalWorkspace, type SignalWorkspace } from './adapters/file/signals/resolve-workspace.js';
export { SignalOutboxCopyError } from './adapters/file/signals/send-signal.js';
export { watchSignalBox } from './adapters/file/signals/watch-signals.js';
export { archiveDirectoryOf } from './adapters/file/archive/box-archive.js';
export { censusOfBoxes } from './adapters/file/box-census.js';
export { pendingFileBatches } from './adapters/file/pending-file-batches.js';

// The JetStream backend opened directly, its errors and retries: its tests drive a real nats-server.
export { createJetStreamBackend, type JetStreamBackend } from './adapters/jetstream/open-jetstream-backend.js';
export { type JetStreamSession, openJetStream } from './adapters/jetstream/connect-jetstream.js';
export type { FederationStreams } from './adapters/jetstream/federation-streams.js';
export {
  isStreamNameInUse,
  isStreamNotFound,
  isWrongLastSequence,
  jetStreamApiCode,
} from './adapters/jetstream/jetstream-errors.js';
export { readSubjectSince } from './adapters/jetstream/read-subject.js';
export { isTransientJetStreamError, retryTransient, TransientJetStreamError } from './adapters/jetstream/transient.js';
export { jetstreamBackendSchema } from './core/schema/backends/jetstream.js';

// Config: the adapter registry's lists and loading a federation's config, as the CLI does.
export {
  ADAPTERS,
  backendConfigFiles,
  backendEnvNames,
  DEFAULT_ADAPTER,
  loadFederationConfig,
  redactedConfig,
} from './adapters/index.js';
export { loadConfig, validateConfig } from './infra/config/load-config.js';
export { missingConfigFiles } from './infra/config/referenced-files.js';

// Schemas, limits and constants of the on-disk formats the library entry does not make public: tests
// write files at the limits and check the formats' fields.
export { META } from './core/schema/common.js';
export {
  isWellFormedAck,
  isWellFormedSignal,
  MAX_SIGNAL_BYTES,
  quarantineReasonSchema,
  SIGNAL_PROTOCOL,
  type SignalType,
} from './core/schema/signal.js';
export { emptyRegistry, type PlacementType } from './core/schema/registry.js';
export {
  agentConfigSchema,
  type AgentLimits,
  type AgentPresetName,
  BACKEND_TYPES,
  DEFAULT_FEDERATION_REPORT,
  DEFAULT_PLAYBOOK_SKILL,
  type FederationConfigInput,
} from './core/schema/config.js';
export { type SentFact, sentFactSchema } from './core/schema/delivery.js';
export { MAX_EVENT_DATA_BYTES } from './core/schema/event-data.js';
export { JSON_SCHEMA_NAMES, jsonSchemaFor } from './core/schema/json-schema.js';
export type { CodebaseBaseline, LaunchContext } from './core/schema/launch-context.js';
export { type CurrentRun, type LaunchRun, launchRunSchema, RUNS_JOURNAL_FILE } from './core/schema/launch-run.js';
export { COMMON_CONTEXT_KEYS, commonContext } from './core/schema/lifecycle-context.js';
export {
  DEDUPE_UNTIL_ACK,
  isWellFormedEnvelope,
  JOURNAL_FILE,
  type JournalLine,
  STATE_DIR,
} from './core/schema/lifecycle-state.js';
export {
  encodeInboxIdPack,
  INBOX_ID_PACK_FILE,
  INBOX_ID_PACK_HEADER_BYTES,
  INBOX_ID_SHARDS,
  readInboxIdPackHeader,
} from './core/schema/inbox-id-index.js';
export { lockOwnerSchema } from './core/schema/lock-owner.js';
export { type NeedsYouItem, needsYouItemSchema } from './core/schema/needs-you.js';
export type { OnboardingIntent } from './core/schema/onboarding-intent.js';
export type { ChatMessage } from './core/schema/chat.js';
export { teamActivityLineSchema } from './core/schema/team-activity.js';
export { deadlineTable } from './core/deadlines.js';
export { getTeam, statusOf } from './core/find-team.js';
export { toJsonText } from './core/json-text.js';
export { resolveParty, type SignalParty } from './core/resolve-party.js';
export { redactUrl, redactUrlsIn } from './core/redact-url.js';
export { splitCommand } from './core/split-command.js';

// The engine below its public operations: the registry written as a command does, a team's lifecycle and
// its inbox consumer, snapshots and their migrations: the seams the crash and concurrency tests cut at.
export { updateRegistryIn } from './engine/registry/update-registry.js';
export { writeRegistryStatus } from './engine/registry/team-status.js';
export { touchLastActive } from './engine/registry/touch-activity.js';
export { settleWorktreeGit } from './engine/registry/worktree-git.js';
// fed's one git helper: the planted-config tests run each command through it.
export { git, gitAsync, gitRemote } from './engine/registry/git.js';
export { loadTeamLifecycle } from './engine/actors/team-lifecycle.js';
export { type ConsumerOptions, TeamInboxConsumer } from './engine/actors/consume-inbox.js';
export { initialPersistedSnapshot } from './engine/actors/lifecycle-transition.js';
export type { ApplyFaultPoint, LifecycleChange } from './engine/actors/lifecycle-types.js';
export { LifecycleWalk } from './engine/actors/lifecycle-walk.js';
export { reportSignalId } from './engine/actors/report-signal-id.js';
export { restoreSnapshot, SnapshotVersionError } from './engine/actors/restore-snapshot.js';
export { registerSnapshotMigration } from './engine/actors/snapshot-migrations.js';
export { stateOf } from './engine/actors/state-of.js';
export { acquireTeamLease } from './engine/actors/team-lease.js';
export { TeamWakeEvent } from './engine/actors/run-actors.js';
export { sentFactOf, signalDigest } from './engine/delivery/sent-fact.js';
export type { LaunchResult } from './engine/hooks/federation-hooks.js';
export { loadHooks } from './engine/hooks/load-hooks.js';
export { copyFederation } from './engine/migration/copy-federation.js';
export { bundledSkillsDir, seedSkills } from './engine/skills/seed-skills.js';

// The archetypes and their machines: the model-based tests walk every machine in the catalog with its
// descriptor's samples, and the launch machine's phases.
export { archetypeFor, archetypes, lifecycleFor, machineCatalog } from './engine/archetypes/catalog.js';
export { type Archetype, progressLines, SAMPLE_FAIL_REASON } from './engine/archetypes/archetype.js';
export { codingEntry } from './engine/archetypes/coding/index.js';
export { MERGE_KILL_POINTS } from './engine/archetypes/coding/merge.js';
export { consultantArchetype, consultantEntry } from './engine/archetypes/consultant/index.js';
export { deliverableArchetype, deliverableEntry } from './engine/archetypes/deliverable/index.js';
export { type LaunchEvent, launchMachine, type LaunchPhase } from '../machines/launch.machine.js';

// Deliverables and the codebase survey: the checks and the scans, fed text directly.
export { checkMarkdownText } from './engine/deliverable/check-deliverable.js';
export { DOCUMENTATION_RULES } from './engine/deliverable/documentation-rules.js';
export { loadJsonSchemaValidator } from './engine/deliverable/json-schema-validator.js';
export { appendLearningEntries } from './engine/deliverable/learning-log.js';
export { MARKDOWN_LIMITS, markdownLimitProblem } from './engine/deliverable/markdown-limits.js';
export { parseMarkdown } from './engine/deliverable/parse-markdown.js';
export { surveyCodebase } from './engine/survey/survey.js';
export { topLevelSources, walkCodebase } from './engine/survey/walk-codebase.js';
export { type FileRecord, MAX_ANALYSED_BYTES, takeInventory } from './engine/survey/inventory.js';
export { findGoImports, findPythonImports, findScriptImports } from './engine/survey/import-scan.js';
export { languageOf } from './engine/survey/languages.js';
export { isTestFile } from './engine/survey/test-file-names.js';

// The launch by its phases: run records, the agent's process and broker, the sandbox and its network
// proxy, the presets' streams, driven with fake agent CLIs, faults and rate limits.
export {
  appendRun,
  clearCurrentRun,
  readCurrentRun,
  readLastRun,
  readRecentRuns,
  writeCurrentRun,
} from './apps/launch/run-records.js';
export { readRunHistory } from './engine/runs/run-history.js';
export { keepRemovedRuns, readRemovedRuns } from './engine/registry/removed-runs.js';
export { accountOf, activeAccountLimit, recordAccountLimit } from './apps/launch/account-limit.js';
export { waitForConsumer } from './apps/launch/prepare/launch-leases.js';
export { renderFixPrompt } from './apps/launch/prepare/fix-prompt.js';
export { hostPolicy, type HostPolicy } from './apps/launch/prepare/sandbox/host-policy.js';
export { bubblewrapArgs, findBubblewrap, machineMounts } from './apps/launch/prepare/sandbox/sandbox.js';
export { codingWorktree } from './apps/launch/prepare/sandbox/coding-worktree.js';
export { bringInTeamBranch, readyTeamGit, storePaths } from './engine/registry/team-git-store.js';
export { AgentBroker, type AgentBrokerOptions } from './apps/launch/supervise/agent-broker.js';
export { teamEventApplier } from './apps/launch/supervise/agent-events.js';
export { AgentProcess } from './apps/launch/supervise/agent-process.js';
export { SpareWatchdogs } from './apps/launch/supervise/spare-watchdogs.js';
export { builtInAgentBin } from './apps/launch/builtin-agent.js';
export { writeCommandShims } from './apps/launch/supervise/command-shims.js';
export { readRefusedCompletion } from './apps/launch/supervise/refused-completion.js';
export { RunStream } from './apps/launch/supervise/run-stream.js';
export { NetworkProxy, type ProxiedConnection } from './apps/launch/supervise/network/network-proxy.js';
export { NetworkLog, networkSummary } from './apps/launch/supervise/network/network-log.js';
export { checkHost, isPrivateAddress } from './apps/launch/supervise/network/host-check.js';
export { readClientHello } from './apps/launch/supervise/network/client-hello.js';
export { CLOCK_TIME_MARGIN_MS } from './apps/launch/judge/reset-time.js';
export { AGENT_PRESET_CATALOG } from './apps/launch/presets/catalog.js';
export {
  emptyStats,
  type McpServer,
  type PresetInvocation,
  type StreamStats,
} from './apps/launch/presets/agent-preset.js';
export { classifyError } from './apps/launch/presets/classify-error.js';

// The programs' insides: what the monitor, runs, needs-you, chat, plan and doctor compute before they
// render it, the dashboard's server and its wire types, the MCP servers, and the generated docs.
export { runMonitor } from './apps/monitor/run-monitor.js';
export type { MonitorReport, TeamReport } from './apps/monitor/monitor-report.js';
export { teamReport } from './apps/monitor/team-health.js';
export { formatDuration, renderMonitorReport } from './apps/monitor/render-monitor.js';
export { readFederationRuns } from './apps/runs/federation-runs.js';
export { teamRunTotals } from './apps/runs/journal-totals.js';
export { totalRuns } from './apps/runs/run-totals.js';
export { renderRuns } from './apps/runs/render-runs.js';
/** `fed runs show` as the CLI runs it: a run's transcript, from the workspace or the backend's copy. */
export { readRunTranscript } from './apps/runs/run-transcript.js';
export type { RunSummary } from './apps/run/run-federation.js';
export type { ServeEvent } from './apps/serve/serve-events.js';
/** Taken work of an unplaced team, as the dispatcher's tests hand it one without a NATS server. */
export type { TakenWork } from './ports/dispatch-queue.js';
/** The hosts a server hears, as the failover's tests hand it some without a NATS server. */
export type { HeardHost, HostDirectory } from './ports/host-directory.js';
/** A server's touch with the store, as the failover's tests give it one (in touch, or back from an outage). */
export { StoreContact } from './apps/hosts/store-contact.js';
/** What a fenced host's server aborts its launches with, as the dispatcher's tests fence one. */
export { LaunchFenced } from './apps/launch/launch-options.js';
export { serveFederation } from './apps/serve/serve-federation.js';
export { acquireServeLease, serveLeases } from './apps/serve/serve-lease.js';
/** What a server does after a worktree team's launch for a move to another host: its commit recorded, its branch pushed. */
export { keepTeamCommit } from './apps/hosts/team-commit.js';
export { retryTeam } from './apps/run/team-retry.js';
/** Whether a team has work, as `fed run` and `fed serve` judge it: its tests count what a judgement reads. */
export { judgeTeam } from './apps/run/team-judgement.js';
/** `fed migrate` as the CLI runs it, with what only a shared backend keeps (team files, hosts, the work queue). */
export { migrateIntoBackend, migrateIntoFiles } from './apps/migrate/migrate-federation.js';
export { needsYou } from './apps/needs-you/needs-you.js';
export { notifyNeedsYou } from './apps/needs-you/notify-needs-you.js';
export { CHAT_POLL_LIMIT, type ChatChannel } from './apps/chat/chat-channel.js';
export { FileChatChannel } from './apps/chat/file-channel.js';
export { AgentHostChatChannel } from './apps/chat/agent-host-channel.js';
export { type BridgeActivity, ChatBridge } from './apps/chat/chat-bridge.js';
export { renderStatusSummary } from './apps/chat/status-summary.js';
export type { FederationPlan } from './apps/plan/plan.js';
export type { DoctorReport } from './apps/doctor/doctor.js';
/** `fed doctor` as the CLI runs it: on a root, whatever its config. */
export { runDoctorAt } from './apps/doctor/doctor.js';
export { nodeSupportWarnings } from './apps/doctor/node-support-check.js';
export type {
  ActionRefusal,
  ActionResult,
  BoardView,
  DiagramLayout,
  DispatchState,
  FederationView,
  LiveEvent,
  NeedsYouView,
  PlanProposalView,
  SignalsView,
  SteeringView,
  SignalThreadView,
  TeamPageView,
  TranscriptChunk,
} from './apps/ui/api-types.js';
export { startUiServer, UI_MAX_CONNECTIONS, type UiServer } from './apps/ui/server/ui-server.js';
export { UiViews } from './apps/ui/server/ui-views.js';
export { teamPageView } from './apps/ui/server/team-page.js';
export { createLiveHub, type SseMessage } from './apps/ui/live/live-hub.js';
export { createFedServer } from './apps/mcp/fed-server.js';
export { createTeamServer, type TeamServer } from './apps/mcp/team-server.js';
export { createMetaServer } from './apps/mcp/meta-server.js';
export { registerFedTool } from './apps/mcp/fed-tool.js';
export { serveStdio } from './apps/mcp/serve-stdio.js';
export { MAX_LINE_BYTES } from './apps/mcp/wire/stdio-wire.js';
export { describeMachine } from './apps/machines-export/describe-machine.js';
export { exportFiles, exportText, writeExportFiles } from './apps/machines-export/export-machines.js';
export { configFields, renderConfigReference } from './apps/docs/config-reference.js';
export { CONFIG_FIELD_DESCRIPTIONS } from './apps/docs/config-fields.js';
export { writeDemoCodebase } from './apps/demo/demo-codebase.js';

// Infra, where the invariants live: atomic publish, locks and process identity (complete on delivery, no
// clobber, one lock winner), the broker's frames, process trees, inspection, telemetry URLs and watchers.
export {
  createFileExclusive,
  fsyncDirectory,
  linkFileNoClobber,
  publishFileNoClobber,
  suffixedName,
  tempPathFor,
  unlinkQuietly,
  writeFileAtomic,
  writeFileAtomicAsync,
  writeTempFiles,
} from './infra/fs/atomic-write.js';
export {
  acquireLock,
  assertLockHeld,
  LockLostError,
  LockTimeoutError,
  releaseLock,
  withLock,
} from './infra/fs/lock.js';
export { currentProcessStartTime, processIsAlive, processStartTime } from './infra/fs/process-identity.js';
export { appendJsonLine } from './infra/fs/append-line.js';
export { ensureDirectory } from './infra/fs/ensure-directory.js';
export { openForAppend } from './infra/fs/open-for-append.js';
export { readFileBounded } from './infra/fs/read-file-bounded.js';
export { readFileFrom, readFileTail, readIdentifiedTextFile, readTextFile } from './infra/fs/read-json-file.js';
export { fileSystemErrorFor } from './infra/fs/fs-errors.js';
export {
  brokerAddress,
  encodeFrame,
  FRAME,
  FrameReader,
  MAX_FRAME_BYTES,
  socketAddress,
} from './infra/process/broker-protocol.js';
export { sendBrokerEvent } from './infra/process/broker-event.js';
export { KILL_POINT_ENV } from './infra/process/kill-point.js';
export { LISTEN_PORTS_ENV, receiveListener } from './infra/process/listener-channel.js';
export { endGroupWithLauncher } from './infra/process/lifeline-worker.js';
export { descendantsOf } from './infra/process/process-tree.js';
export { runningProcessesNamed } from './infra/process/running-processes.js';
export { createInspection } from './infra/inspect/create-inspection.js';
export { openInspectionLog } from './infra/inspect/inspection-log.js';
export { otlpMetricsUrl } from './infra/telemetry/metrics-export.js';
export { otlpTracesUrl } from './infra/telemetry/trace-export.js';
export { CoalesceByKey } from './infra/watch/coalesce-by-key.js';
export { SharedDirectoryWatchers } from './infra/watch/shared-directory-watchers.js';
