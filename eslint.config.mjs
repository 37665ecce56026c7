// The linter states the rules of the code once, for every file: the layers (arrows point down only, no
// cycles), the library that never prints or exits, the file adapter's internals kept behind the ports.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;

/**
 * The layers, lowest first: a layer imports only from the layers before it (infra and ports sit side by
 * side and import neither each other). `src/index.ts`, the library entry, may import every layer but the CLI.
 */
const LAYERS = [
  { dir: 'machines', forbidden: ['src'] },
  { dir: 'src/core', forbidden: ['src/infra', 'src/ports', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/infra', forbidden: ['src/ports', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/ports', forbidden: ['src/infra', 'src/adapters', 'src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/adapters', forbidden: ['src/engine', 'src/apps', 'src/cli'] },
  { dir: 'src/engine', forbidden: ['src/apps', 'src/cli'] },
  { dir: 'src/apps', forbidden: ['src/cli'] },
  { dir: 'src/index.ts', forbidden: ['src/cli'] },
];

/** Outside src/adapters, the adapters are reached through the ports (src/ports) and src/adapters/open-backend.ts. */
const ADAPTER_INTERNALS = ['src/adapters/file', 'src/adapters/jetstream'];
const OUTSIDE_ADAPTERS = ['src/*.ts', 'src/!(adapters)/**'];

/** Imports that go up a layer, left by the re-layout into folders: the importer, what it imports, why. */
const UPWARD_IMPORTS = [
  [
    'src/core/resolve-party.ts',
    'src/ports/signal-transport.ts',
    'the SignalParty type is declared in the transport port',
  ],
  [
    'src/core/schema/judge-signal.ts',
    'src/ports/signal-transport.ts',
    'the SignalBox type is declared in the transport port',
  ],
  [
    'src/adapters/file/archive/archive-signals.ts',
    'src/engine/delivery/delivery-inspector.ts',
    'archiving asks the delivery inspector which signals are done',
  ],
  [
    'src/adapters/file/signals/send-signal.ts',
    'src/engine/delivery/sent-fact.ts',
    'CONCURRENT_SEND_MS is declared with the sent facts of the engine',
  ],
  [
    'src/engine/archetypes/deliverable/completion.ts',
    'src/apps/launch/launch-files.ts',
    'the baseline of a launch is read by the file module of fed launch',
  ],
];

/**
 * Modules outside src/adapters that import the file adapter's internals, each with why: the import part of
 * the KNOWN table of test/unit/architecture/ports-boundary.test.ts (its check of layout fields stays there).
 */
const FILE_ADAPTER_USERS = {
  'src/index.ts': 'the package entry re-exports the file adapter internals that callers of the 0.1 library API import',
  'src/engine/federation/init-federation.ts':
    '`fed init` creates a file-signal-v1 federation: its folders and an empty registry file',
  // Until the Federation context hands these down (issue 25): the workspace containment check, and the
  // file-only delivery operations (archive, stuck signals) that the file adapter does not yet offer as a port.
  'src/apps/doctor/team-checks.ts': 'checks workspace containment',
  'src/apps/launch/launch-team.ts': 'checks workspace containment',
  'src/apps/monitor/monitor-cycle.ts': 'reads stuck signals of a file federation',
  'src/apps/monitor/monitor-report.ts': 'reads stuck signals of a file federation',
  'src/apps/monitor/run-monitor.ts': 'archives signals of a file federation',
  'src/apps/run/team-retry.ts': 'checks workspace containment',
  'src/cli/commands/migrate.ts': 'opens the file federation it copies from',
  'src/cli/commands/signal.ts': 'archives signals of a file federation',
  'src/engine/actors/run-actors.ts': 'checks workspace containment',
  'src/engine/actors/team-status-command.ts': 'checks workspace containment',
  'src/engine/archetypes/coding/review.ts': 'checks workspace containment',
  'src/engine/delivery/alert-stuck-signals.ts': 'reads stuck signals of a file federation',
  'src/engine/delivery/delivery-inspector.ts': 'reads archived signals',
  'src/engine/delivery/find-signal.ts': 'reads archived signals',
  'src/engine/messaging/list-signals.ts': 'reads archived signals',
  'src/engine/registry/remove-team.ts': 'checks workspace containment',
};

/** The same for the JetStream adapter (the KNOWN table checked the file adapter only). */
const JETSTREAM_ADAPTER_USERS = {
  'src/index.ts': 'the package entry exports createJetStreamBackend',
  'src/engine/federation/init-federation.ts':
    'checks the federation name can name JetStream streams, and notes their durability',
  'src/apps/doctor/doctor.ts': 'opens the JetStream backend to check it',
  'src/apps/doctor/jetstream-checks.ts': 'checks the durability and reachability of a JetStream server',
};

/**
 * The imports that break the rules above today: work left, to shrink, never to grow (lint-rules.test.ts
 * fails when one is no longer needed). `allow` is what `file` may import (a file or a folder) past the zones.
 */
export const EXCEPTIONS = [
  ...UPWARD_IMPORTS.map(([file, allowed, why]) => ({ file, allow: [allowed], why })),
  ...Object.entries(FILE_ADAPTER_USERS).map(([file, why]) => ({ file, allow: ['src/adapters/file'], why })),
  ...Object.entries(JETSTREAM_ADAPTER_USERS).map(([file, why]) => ({ file, allow: ['src/adapters/jetstream'], why })),
];

/** The no-restricted-paths zones, with the imports `allow` lets through. */
export function zones(allow = []) {
  const zone = (target, from, message) => {
    const except = allow
      .filter((path) => path === from || path.startsWith(`${from}/`))
      .map((path) => `./${path.slice(from.length + 1)}`);
    return { target, from, message, ...(except.length ? { except } : {}) };
  };
  return [
    ...LAYERS.flatMap(({ dir, forbidden }) =>
      forbidden.map((from) => zone(dir, from, `${dir} is a lower layer than ${from}.`)),
    ),
    ...ADAPTER_INTERNALS.map((from) =>
      zone(OUTSIDE_ADAPTERS, from, 'Reach an adapter through src/ports and src/adapters/open-backend.ts.'),
    ),
  ];
}

/** Standalone programs, started as processes: printing and exit codes are their job. */
export const PROGRAMS = [
  'src/apps/agent/main.ts', // the fed-agent program (its executable, apps/agent/bin.ts, only imports it)
  'src/apps/launch/agent-watchdog.ts', // the watchdog process fed launch starts around an agent
];

const PRINTS_OR_EXITS = [
  ...['exit', 'exitCode'].map((name) => [
    `process.${name}`,
    `MemberExpression[object.name='process'][property.name='${name}']`,
  ]),
  ...['stdout', 'stderr'].map((name) => [
    `process.${name}.write`,
    `MemberExpression[object.object.name='process'][object.property.name='${name}'][property.name='write']`,
  ]),
].map(([name, selector]) => ({
  selector,
  message: `${name}: the library never prints or exits; return the outcome to src/cli.`,
}));

const UNSAFE_XSTATE = '__unsafe_getAllOwnEventDescriptors';
const UNSAFE_XSTATE_WHY =
  'an xstate internal that may change without notice; list the events from the machine definition.';

export default defineConfig(
  { ignores: ['dist/', 'coverage/', '.bench/', 'test/fixtures/federation-0.1.0/'] },
  js.configs.recommended,
  // Not type-aware: the type-checked rules would double the time of `npm run lint`, and tsc checks the types.
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    plugins: { 'import-x': importX },
    settings: {
      // Without these import-x reads no .ts module, and no-cycle finds nothing.
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts', '.cts'] },
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: `${ROOT}/tsconfig.json` })],
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-properties': ['warn', { property: UNSAFE_XSTATE, message: UNSAFE_XSTATE_WHY }],
      'no-restricted-imports': [
        'warn',
        { paths: [{ name: 'xstate', importNames: [UNSAFE_XSTATE], message: UNSAFE_XSTATE_WHY }] },
      ],
      // `_`-prefixed names say "unused on purpose" (a parameter an interface requires, a skipped element).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    files: ['src/**', 'machines/**'],
    rules: { 'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: zones() }] },
  },
  ...[...new Set(EXCEPTIONS.map(({ file }) => file))].map((file) => ({
    files: [file],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: ROOT,
          zones: zones(EXCEPTIONS.filter((entry) => entry.file === file).flatMap(({ allow }) => allow)),
        },
      ],
    },
  })),
  {
    // Known cycle, being removed (the Federation context): the file adapter's team-workspace.ts opens a
    // backend through open-backend.ts, which opens the file adapter. A warning until then: make it an error
    // again by deleting this block.
    files: [
      'src/adapters/open-backend.ts',
      'src/adapters/file/file-lifecycle-store.ts',
      'src/adapters/file/file-signal-transport.ts',
      'src/adapters/file/open-file-backend.ts',
      'src/adapters/file/signals/resolve-workspace.ts',
      'src/adapters/file/team-workspace.ts',
    ],
    rules: { 'import-x/no-cycle': ['warn', { ignoreExternal: true }] },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['src/**'],
    ignores: ['src/cli/**', ...PROGRAMS],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': ['error', ...PRINTS_OR_EXITS],
    },
  },
);
