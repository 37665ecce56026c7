/**
 * The fed library API: everything the CLI uses is importable from the package root.
 */
export * from '../machines/index.js';
export * from './errors.js';
export * from './layout.js';
export * from './schema/common.js';
export * from './schema/config.js';
export * from './schema/registry.js';
export * from './schema/team-marker.js';
export { zodProblems, describeValue, jsonPath } from './schema/problems.js';
export { findUnknownKeys, closest, type UnknownKey } from './schema/unknown-keys.js';
export * from './fs/atomic-write.js';
export * from './fs/lock.js';
export { parseJsonText, toJsonText, type JsonParseResult } from './fs/json-text.js';
export * from './config/load-config.js';
export * from './config/env-overrides.js';
export * from './federation/locate.js';
export * from './federation/init-federation.js';
export * from './registry/registry-file.js';
export * from './registry/update-registry.js';
export * from './registry/find-team.js';
export * from './registry/onboard.js';
export * from './registry/placement.js';
export * from './registry/team-status.js';
export * from './registry/touch-activity.js';
export * from './schema/signal.js';
export * from './schema/json-schema.js';
export * from './fs/ensure-directory.js';
export * from './signals/signal-file-name.js';
export * from './signals/parse-signal-file.js';
export * from './signals/resolve-workspace.js';
export * from './signals/send-signal.js';
export * from './signals/read-signals.js';
export * from './signals/list-signals.js';
export * from './signals/ack-signal.js';
export * from './signals/watch-signals.js';
export * from './signals/quarantine.js';
