import { z } from 'zod';
import { schedulesSchema } from './schedule.js';
import { serveConfigSchema } from './host.js';
import { splitCommand } from '../split-command.js';
import { nonEmptyString, TEAM_ID_PATTERN } from './common.js';
import { networkPolicySchema } from './network-policy.js';
import { describeUrlValue, describeValue } from './problems.js';
import { DURATION_EXAMPLES, durationSchema, parseDuration, timerSecondsSchema } from './duration.js';
import { SIGNAL_TYPES, type SignalType } from './signal.js';
import type { BackendDocs } from './backends/backend-docs.js';
import { filesBackend } from './backends/files.js';
import { jetstreamBackend } from './backends/jetstream.js';

/** `federate.config.json` (docs/design/spec.md §2.3): every field optional, defaults applied on load. */
export const CONFIG_FILE = 'federate.config.json';
export const DEFAULT_AGENT_COMMAND = 'fed-agent';
export const DEFAULT_COLLECTOR_ENDPOINT = 'http://localhost:18888';
export const DEFAULT_PLAYBOOK_SKILL = 'domain-playbook';
export const DEFAULT_DELIVERABLE = 'deliverable.md';
export const DEFAULT_FEDERATION_REPORT = 'federation-report.md';

/** A plain file name (no directory part), because it is joined onto a team workspace. */
const fileName = nonEmptyString.refine((name) => !/[\\/]/.test(name) && name !== '.' && name !== '..', {
  error: (issue) => `expected a file name without directories, got ${describeValue(issue.input)}`,
});

/** A file of the user's home, named relative to it and inside it. */
const homeFile = nonEmptyString.refine(
  (path) => !path.startsWith('/') && !path.split('/').some((part) => part === '..' || part === '.' || part === ''),
  {
    error: (issue) =>
      `expected a path relative to the home, inside it (such as ".claude/.credentials.json"), got ${describeValue(issue.input)}`,
  },
);

/**
 * What a team's agent may do that the sandbox otherwise stops, by name (`agent.teams.<id>.sandbox`:
 * `{ "allow": [...] }`), with what the team gives up for it — said on every run.
 */
export const SANDBOX_ALLOWANCES = {
  'unix-sockets':
    "its agent may make Unix sockets, so it reaches every host socket it can see (a database's, Docker's — root on this machine — the D-Bus buses')",
} as const;
export type SandboxAllowance = keyof typeof SANDBOX_ALLOWANCES;
export const SANDBOX_ALLOWANCE_NAMES = Object.keys(SANDBOX_ALLOWANCES) as [SandboxAllowance, ...SandboxAllowance[]];

/** A team's own sandbox setting: on or off, or on with named allowances. */
const teamSandboxSchema = z.union(
  [
    z.boolean(),
    z.strictObject({
      allow: z.array(
        z.enum(SANDBOX_ALLOWANCE_NAMES, {
          error: (issue) => `expected one of ${SANDBOX_ALLOWANCE_NAMES.join(', ')}, got ${describeValue(issue.input)}`,
        }),
      ),
    }),
  ],
  {
    error: (issue) =>
      `expected true, false or { "allow": [${SANDBOX_ALLOWANCE_NAMES.map((n) => `"${n}"`).join(', ')}] }, got ${describeValue(issue.input)}`,
  },
);

/** Something a sandboxed agent must not read: `~/…` in the user's home, an absolute path, or one relative to the root. */
const deniedPath = nonEmptyString.refine(
  (path) => !path.includes('\0') && (path === '~' || !path.startsWith('~') || path.startsWith('~/')),
  {
    error: (issue) =>
      `expected a path — "~/…" in your home, absolute, or relative to the federation root (such as ".env") — got ${describeValue(issue.input)}`,
  },
);

const collectorEndpoint = z.url({
  error: (issue) => `expected a URL such as ${DEFAULT_COLLECTOR_ENDPOINT}, got ${describeUrlValue(issue.input)}`,
});

export const telemetryConfigSchema = z.object({
  enabled: z.boolean().default(true),
  collector: z.object({ endpoint: collectorEndpoint.default(DEFAULT_COLLECTOR_ENDPOINT) }).default({
    endpoint: DEFAULT_COLLECTOR_ENDPOINT,
  }),
});

export const DEFAULT_CHAT_TIMEOUT_SECONDS = 120;

export const chatConfigSchema = z.object({
  teamId: nonEmptyString,
  channelId: nonEmptyString.regex(/^19:.+@thread\.[a-z0-9]+$/i, {
    error: (issue) => `expected a channel id shaped like 19:…@thread.tacv2, got ${describeValue(issue.input)}`,
  }),
  /**
   * The agent-host session that posts to and reads the channel (fed holds no chat SDK, docs/design/spec.md §5): a command
   * line where `{prompt}` stands for the prompt; without `{prompt}` the prompt is the last argument.
   * Default: `agentCommand`.
   */
  command: nonEmptyString.optional(),
  /** How long one agent-host session may take before it is killed (default 120). */
  timeoutSeconds: timerSecondsSchema({ what: 'timeout' }).optional(),
});

export const DEFAULT_NOTIFY_TIMEOUT_SECONDS = 30;

/**
 * `notify`: a command told about each item that starts waiting on a person (src/core/schema/needs-you.ts),
 * once per item: the item as JSON on its stdin, split like `agentCommand` and never run by a shell.
 */
export const notifyConfigSchema = z.object({
  command: nonEmptyString,
  /** How long one run may take before it is killed (default 30); it is tried again on a later pass. */
  timeoutSeconds: timerSecondsSchema({ what: 'timeout' }).optional(),
});

/** The agent CLIs `fed launch` knows how to drive headless (src/apps/launch/presets/); `custom` is any other command. */
export const AGENT_PRESETS = [
  'claude',
  'codex',
  'gemini',
  'copilot',
  'opencode',
  'goose',
  'aider',
  'fed-agent',
  'custom',
] as const;
export type AgentPresetName = (typeof AGENT_PRESETS)[number];

const positive = (what: string) =>
  z
    .number({ error: (issue) => `expected ${what}, got ${describeValue(issue.input)}` })
    .positive({ error: (issue) => `expected ${what} > 0, got ${describeValue(issue.input)}` });

/** Per-run limits: passed to CLIs that take them, enforced by the launcher for the rest; reaching one pauses the team. */
export const agentLimitsSchema = z.object({
  maxTurns: positive('a number of turns').int({ error: 'expected a whole number of turns' }).optional(),
  maxCostUsd: positive('a cost in USD').optional(),
  maxMinutes: positive('a number of minutes').optional(),
  /** The whole federation's spend (every team's runs): once reached, no launch starts. */
  federationUsd: positive('a cost in USD').optional(),
});
export type AgentLimits = z.infer<typeof agentLimitsSchema>;

const presetSchema = z.enum(AGENT_PRESETS, {
  error: (issue) => `expected one of ${AGENT_PRESETS.join(', ')}, got ${describeValue(issue.input)}`,
});
const argsSchema = z.array(
  z.string({ error: (issue) => `expected a string argument, got ${describeValue(issue.input)}` }),
);

/** A team's own per-run limits: the federation's budget is the whole federation's, not one team's. */
const teamLimitsSchema = agentLimitsSchema.strict().refine((limits) => limits.federationUsd === undefined, {
  error: "federationUsd is the whole federation's budget: set it in agent.limits, not for one team",
  path: ['federationUsd'],
});

/**
 * `agent.teams.<id>`: what differs for one team from the federation's agent settings — its agent (`command`
 * replaces `agentCommand`, `preset`, `model`, `args`, `account`), its per-run limits, its network policy.
 * The team's agent is resolved by src/apps/launch/team-agent.ts.
 */
/**
 * A command line that names a program, split here as the launch splits it (splitCommand): one of spaces
 * only, or with a quote left open, would otherwise pass `fed config show` and be refused only at the launch.
 */
const commandSchema = nonEmptyString
  .refine((command) => command === '' || command.trim() !== '', { error: 'expected a command, got only spaces' })
  .superRefine((command, ctx) => {
    if (command.trim() === '') return;
    try {
      splitCommand(command, 'the command line');
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `${(error as Error).message}; close it, or put a backslash before a quote that is part of a word`,
      });
    }
  });

export const teamAgentConfigSchema = z.strictObject({
  command: commandSchema.optional(),
  preset: presetSchema.optional(),
  model: nonEmptyString.optional(),
  args: argsSchema.optional(),
  account: nonEmptyString.optional(),
  limits: teamLimitsSchema.optional(),
  network: networkPolicySchema.optional(),
  /**
   * The team's own sandbox setting, over `agent.sandbox`: `false` runs its agent without one (as you, with
   * your home, your credentials and the machine's network), `{ "allow": [...] }` in one with named
   * allowances (SANDBOX_ALLOWANCES) — what it gives up is said on every run.
   */
  sandbox: teamSandboxSchema.optional(),
});
export type TeamAgentConfig = z.output<typeof teamAgentConfigSchema>;

/**
 * `agent`: how `fed launch` drives the agent CLI named by `agentCommand`. The preset is chosen from the
 * command's program name (`claude`, `/opt/bin/codex`, …) unless set here; `args` are appended to the
 * preset's own arguments; `model` is passed with the CLI's model flag.
 */
export const agentConfigSchema = z.object({
  preset: presetSchema.optional(),
  args: argsSchema.default([]),
  model: nonEmptyString.optional(),
  limits: agentLimitsSchema.default({}),
  /**
   * The CLI account the teams' agents share (default: the preset's name): a rate limit one team meets
   * pauses the others on the same account until the reset.
   */
  account: nonEmptyString.optional(),
  /** How often a deliverable the checks refused is handed back to the agent to fix before the team fails. */
  fixAttempts: z
    .number({ error: (issue) => `expected a whole number of attempts, got ${describeValue(issue.input)}` })
    .int({ error: (issue) => `expected a whole number of attempts, got ${describeValue(issue.input)}` })
    .nonnegative({ error: (issue) => `expected 0 or more attempts, got ${describeValue(issue.input)}` })
    .default(2),
  /**
   * Run every team's agent in fed's sandbox (bubblewrap, when it works here): a team that studies the
   * codebase writes only its own workspace, a coding team only its worktree and its branch; none reads your
   * credential stores. A team's own `agent.teams.<id>.sandbox` overrides it.
   */
  sandbox: z.boolean({ error: (issue) => `expected true or false, got ${describeValue(issue.input)}` }).default(true),
  /**
   * What no sandboxed agent reads, besides your credential stores (src/apps/launch/prepare/sandbox/
   * credential-stores.ts): `~/…` in your home, an absolute path, or one relative to the federation root
   * (a codebase's `.env`). A folder is seen empty, a file cannot be opened.
   */
  denyRead: z.array(deniedPath).default([]),
  /**
   * Give the agent fed's MCP server (`fed mcp`) for each run, where its CLI takes one per run: `true`
   * (default) beside the CLI's own servers, `"strict"` instead of them (claude's `--strict-mcp-config`),
   * `false` not at all.
   */
  /**
   * Where each sandboxed team's agent keeps its home (`$HOME` inside the sandbox): `<home>/<team>`, an
   * absolute path or one relative to the federation root; default: the team's own `.fed/home`. Never the
   * user's home: nothing of that is writable from the sandbox; nor in the root, fed's installation or a
   * system folder (src/apps/launch/prepare/sandbox/agent-home.ts, docs/threat-model.md).
   */
  home: nonEmptyString.optional(),
  /**
   * The files of the user's home brought read-only into the agent's home, relative to it (what the CLI
   * needs to authenticate); default: the preset's (claude: `.claude/.credentials.json`, codex:
   * `.codex/auth.json`, …).
   */
  homeFiles: z.array(homeFile).optional(),
  mcp: z
    .union([z.boolean(), z.literal('strict')], {
      error: (issue) => `expected true, false or "strict", got ${describeValue(issue.input)}`,
    })
    .default(true),
  /**
   * What a sandboxed agent may reach on the network (network-policy.ts); a team's entry in `teams`
   * overrides it. Absent: DEFAULT_NETWORK_POLICY in the sandbox. Kept absent when not given, for an agent
   * without the sandbox has the machine's network: a policy the config sets for it is refused at its launch
   * (it would not be enforced), where the default is not.
   */
  network: networkPolicySchema.optional(),
  /** Per team (by id), what differs from the federation's agent settings: its agent, its limits, its network policy. */
  teams: z
    .record(z.string(), teamAgentConfigSchema)
    .superRefine((teams, ctx) => {
      for (const id of Object.keys(teams).filter((key) => !TEAM_ID_PATTERN.test(key)))
        ctx.addIssue({
          code: 'custom',
          path: [id],
          message: `"${id}" is not a team id: expected a slug of lowercase letters, digits and single hyphens (like "docs-team")`,
        });
    })
    .default({}),
});
export type AgentConfig = z.output<typeof agentConfigSchema>;

/** A deadline of a signal type, or `none` for no deadline. */
const DEADLINE_EXPECTED = `a duration with a unit such as ${DURATION_EXAMPLES}, or "none"`;
const signalDeadline = z
  .string({ error: (issue) => `expected ${DEADLINE_EXPECTED}, got ${describeValue(issue.input)}` })
  .refine((text) => text === 'none' || parseDuration(text) !== undefined, {
    error: (issue) => `expected ${DEADLINE_EXPECTED}, got ${describeValue(issue.input)}`,
  });

/**
 * `signalDeadlines`: how long a signal of each type may wait — a question for its answer (a reply with
 * `--reply-to`), any other type for its acknowledgment (or an answer). Types left out keep the default.
 */
export const DEFAULT_SIGNAL_DEADLINES: Readonly<Partial<Record<SignalType, string>>> = {
  question: '30m',
  directive: '10m',
};
export const signalDeadlinesSchema = z.object(
  Object.fromEntries(SIGNAL_TYPES.map((type) => [type, signalDeadline.optional()])) as Record<
    SignalType,
    z.ZodOptional<typeof signalDeadline>
  >,
);
export type SignalDeadlines = z.output<typeof signalDeadlinesSchema>;

/** `signalArchive`: when present, every `fed monitor` cycle archives acknowledged or answered signals older than `olderThan`. */
export const signalArchiveConfigSchema = z.object({ olderThan: durationSchema });
/**
 * The backends' side of the config, one entry each (src/adapters/<type>/adapter.ts is the rest of the
 * backend): adding a backend adds its module in core/schema/backends/ and its entry here. What follows
 * reads this list.
 */
const BACKENDS = [filesBackend, jetstreamBackend] as const;
/** Their lines of docs/reference/config.md. */
export const BACKEND_DOCS: readonly BackendDocs[] = BACKENDS.map((backend) => backend.docs);
/** Their `type`s. */
export const BACKEND_TYPES = BACKENDS.map((backend) => backend.type);
/** The schemas of a list of entries, in its order (the `backend` union's branches). */
type SchemasOf<L> = { -readonly [K in keyof L]: L[K] extends { schema: infer S } ? S : never };
export const backendConfigSchema = z.discriminatedUnion(
  'type',
  BACKENDS.map((backend) => backend.schema) as SchemasOf<typeof BACKENDS>,
  {
    error: (issue) => {
      const type =
        typeof issue.input === 'object' && issue.input !== null
          ? (issue.input as { type?: unknown }).type
          : issue.input;
      return `expected "type": ${BACKEND_TYPES.map((name) => `"${name}"`).join(' or ')}, got ${describeValue(type)}`;
    },
  },
);
export type BackendConfig = z.output<typeof backendConfigSchema>;

export const configSchema = z.object({
  description: z.string().optional(),
  federationName: nonEmptyString.optional(),
  agentCommand: commandSchema.default(DEFAULT_AGENT_COMMAND),
  agent: agentConfigSchema.default({
    args: [],
    limits: {},
    sandbox: true,
    denyRead: [],
    fixAttempts: 2,
    mcp: true,
    teams: {},
  }),
  telemetry: telemetryConfigSchema.default({
    enabled: true,
    collector: { endpoint: DEFAULT_COLLECTOR_ENDPOINT },
  }),
  chatConfig: chatConfigSchema.optional(),
  notify: notifyConfigSchema.optional(),
  playbookSkill: fileName.default(DEFAULT_PLAYBOOK_SKILL),
  deliverable: fileName.default(DEFAULT_DELIVERABLE),
  /** The federation report meta writes at the root when the deliverable teams are done (`fed run`). */
  federationReport: fileName.default(DEFAULT_FEDERATION_REPORT),
  deliverableSchema: nonEmptyString.optional(),
  importHook: nonEmptyString.optional(),
  signalDeadlines: signalDeadlinesSchema.optional(),
  signalArchive: signalArchiveConfigSchema.optional(),
  /** Directives `fed serve` sends on a cron expression or when a git ref moves (`fed schedule add`). */
  schedules: schedulesSchema.optional(),
  /** How this machine's `fed serve` serves the federation among others (host name, heartbeat, failover). */
  serve: serveConfigSchema.optional(),
  /** Where signals, the registry and lifecycle state live; absent means files (the default backend). */
  backend: backendConfigSchema.optional(),
});

/** The file as written by people (everything optional). */
export type FederationConfigInput = z.input<typeof configSchema>;
/** The configuration after defaults and environment overrides. */
export type FederationConfig = z.output<typeof configSchema>;
