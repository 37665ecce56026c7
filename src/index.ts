/**
 * The fed library API. Its core is the ports (src/ports: SignalTransport, RegistryStore, LifecycleStore,
 * FederationJournal, DeliveryFactStore),
 * `openBackend(root)` and the operations on top of them (sending, listing and acknowledging signals,
 * registry updates, actors, launch, monitor). The file-signal-v1 internals exported further down are
 * kept for callers of the 0.1 API; new code reaches storage through a backend.
 */
export * from '../machines/index.js';
export {
  progressLines,
  SAMPLE_FAIL_REASON,
  type Archetype,
  type CompletionPolicy,
  type HealthInput,
  type JudgeInput,
  type ModelTestSamples,
  type Settled,
} from './engine/archetypes/archetype.js';
export * from './engine/archetypes/catalog.js';
export { deliverableArchetype, deliverableEntry } from './engine/archetypes/deliverable/index.js';
export { STRUCTURE_FAILURE } from './engine/archetypes/deliverable/completion.js';
export { codingArchetype, codingEntry } from './engine/archetypes/coding/index.js';
export * from './engine/archetypes/coding/review.js';
export * from './engine/archetypes/coding/merge.js';
export { consultantArchetype, consultantEntry } from './engine/archetypes/consultant/index.js';
export * from './engine/archetypes/consultant/answer-reference.js';
export * from './apps/machines-export/describe-machine.js';
export * from './apps/machines-export/export-machines.js';
export * from './infra/inspect/create-inspection.js';
export * from './infra/inspect/inspection-log.js';
export { toSafeJson } from './infra/inspect/safe-json.js';
export * from './core/errors.js';
export type * from './core/error-codes.js';
// Ports, backends and the signal operations on them.
export type * from './ports/index.js';
export * from './adapters/index.js';
export * from './engine/context.js';
export * from './adapters/file/open-file-backend.js';
export * from './core/resolve-party.js';
export * from './engine/messaging/send-signal.js';
export * from './engine/messaging/list-signals.js';
export * from './engine/messaging/acknowledge-signals.js';
export * from './engine/messaging/watch-signals.js';
export * from './core/layout.js';
export * from './core/schema/common.js';
export * from './core/schema/config.js';
export * from './core/schema/backends/files.js';
export * from './core/schema/backends/jetstream.js';
export * from './core/schema/registry.js';
export * from './core/schema/team-marker.js';
export { zodProblems, zodProblemText, describeValue, jsonPath } from './core/schema/problems.js';
export { findUnknownKeys, closest, type UnknownKey } from './core/schema/unknown-keys.js';
export * from './infra/fs/atomic-write.js';
export * from './infra/fs/lock.js';
export * from './infra/fs/process-identity.js';
export { lockOwnerSchema } from './core/schema/lock-owner.js';
export { parseJsonText, toJsonText, type JsonParseResult } from './core/json-text.js';
export { validateConfig, type LoadedConfig } from './infra/config/load-config.js';
// The config as every command loads it: the backends' environment overrides (FED_NATS_URL) applied too.
export { loadFederationConfig as loadConfig } from './adapters/index.js';
export * from './infra/config/env-overrides.js';
export { ENV_NATS_URL } from './adapters/jetstream/env-override.js';
export * from './apps/init/locate.js';
export * from './apps/init/init-federation.js';
export * from './engine/registry/update-registry.js';
export * from './core/find-team.js';
export * from './engine/registry/onboard.js';
export * from './engine/registry/placement.js';
export * from './engine/registry/team-status.js';
export * from './engine/registry/touch-activity.js';
export * from './core/schema/signal.js';
export * from './core/schema/json-schema.js';
export * from './infra/fs/ensure-directory.js';
export * from './core/schema/delivery.js';
export { parseDuration, durationSchema, DURATION_EXAMPLES } from './core/schema/duration.js';
export * from './adapters/file/file-delivery-fact-store.js';
export * from './core/deadlines.js';
export * from './engine/delivery/delivery-state.js';
export * from './engine/delivery/delivery-inspector.js';
export * from './engine/delivery/find-signal.js';
export * from './engine/delivery/sent-fact.js';
export * from './engine/delivery/read-marks.js';
export * from './engine/delivery/show-signal.js';
export * from './adapters/file/signals/stuck-signals.js';
export * from './engine/delivery/alert-stuck-signals.js';
export * from './adapters/file/archive/box-archive.js';
export * from './engine/delivery/archive-signals.js';
export * from './core/schema/lifecycle-state.js';
export * from './engine/actors/snapshot-migrations.js';
export * from './engine/actors/restore-snapshot.js';
export * from './engine/actors/signal-events.js';
export * from './engine/actors/report-signal-id.js';
export * from './engine/actors/state-of.js';
export * from './engine/actors/team-lifecycle.js';
export * from './engine/actors/lifecycle-effects.js';
export * from './engine/actors/team-status-command.js';
export * from './engine/actors/consume-inbox.js';
export * from './engine/actors/team-lease.js';
export * from './engine/actors/run-actors.js';
export * from './engine/actors/lifecycle-view.js';
export * from './core/schema/launch-context.js';
export * from './core/schema/launch-run.js';
export * from './engine/hooks/federation-hooks.js';
export * from './engine/hooks/load-hooks.js';
export * from './engine/hooks/notify-hooks.js';
export * from './apps/launch/split-command.js';
export * from './engine/deliverable/codebase-guard.js';
export * from './apps/launch/launch-prompt.js';
export * from './apps/launch/launch-files.js';
export * from './apps/launch/agent-events.js';
export * from './apps/launch/agent-process.js';
export * from './apps/launch/command-shims.js';
export * from './apps/launch/launch-team.js';
export * from './apps/launch/run-records.js';
export * from './apps/launch/orphan-agent.js';
export { AGENT_PRESET_CATALOG, choosePreset } from './apps/launch/presets/catalog.js';
export type { AgentPreset, StreamStats } from './apps/launch/presets/agent-preset.js';
export * from './apps/monitor/monitor-report.js';
export * from './apps/monitor/agent-log-errors.js';
export * from './apps/monitor/team-health.js';
export * from './apps/monitor/monitor-cycle.js';
export * from './apps/monitor/render-monitor.js';
export * from './infra/telemetry/meter.js';
export * from './infra/telemetry/fed-metrics.js';
export * from './infra/telemetry/metrics-export.js';
export * from './core/schema/chat.js';
export * from './apps/chat/chat-channel.js';
export * from './apps/chat/chat-text.js';
export * from './apps/chat/signature.js';
export * from './apps/chat/status-summary.js';
export * from './apps/chat/file-channel.js';
export * from './apps/chat/run-agent-session.js';
export * from './apps/chat/agent-host-channel.js';
export * from './apps/chat/bridge-state.js';
export * from './apps/chat/bridge-commands.js';
export * from './apps/chat/chat-bridge.js';
export * from './core/schema/learning-log.js';
export * from './core/schema/deliverable-summary.js';
export * from './engine/deliverable/learning-log.js';
export * from './engine/deliverable/documentation-rules.js';
export * from './engine/deliverable/check-deliverable.js';
export * from './infra/telemetry/deliverable-metrics.js';
export * from './engine/skills/seed-skills.js';
export * from './infra/fs/read-json-file.js';
export * from './apps/doctor/doctor.js';
export * from './infra/fs/fs-errors.js';
export * from './adapters/team-workspace.js';
export * from './core/schema/onboarding-intent.js';
export * from './core/schema/federation-journal.js';
export * from './infra/fs/append-line.js';
export * from './engine/federation/federation-journal.js';
export * from './apps/plan/plan.js';
export * from './apps/plan/federation-report.js';
export * from './apps/run/run-federation.js';
export * from './apps/run/team-retry.js';
export * from './engine/registry/remove-team.js';
export * from './apps/log/federation-log.js';
// file-signal-v1 internals (the file adapter's), kept for callers of the 0.1 API.
export * from './adapters/file/registry-file.js';
export * from './adapters/file/signals/signal-file-name.js';
export * from './adapters/file/signals/parse-signal-file.js';
export * from './core/schema/judge-signal.js';
export * from './adapters/file/signals/resolve-workspace.js';
export * from './adapters/file/signals/send-signal.js';
export * from './adapters/file/signals/read-signals.js';
export * from './adapters/file/signals/ack-signal.js';
export * from './adapters/file/signals/watch-signals.js';
export * from './adapters/file/signals/quarantine.js';
export * from './adapters/file/state-files.js';
export {
  createJetStreamBackend,
  JETSTREAM_BACKEND_NAME,
  type JetStreamBackend,
  type JetStreamBackendOptions,
} from './adapters/jetstream/open-jetstream-backend.js';
export {
  copyFederation,
  type CopyFederationOptions,
  type CopyFederationResult,
} from './engine/migration/copy-federation.js';
