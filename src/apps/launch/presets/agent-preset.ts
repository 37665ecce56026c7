import type { AgentLimits, AgentPresetName } from '../../../core/schema/config.js';
import type { RunOutcome } from '../../../core/schema/launch-run.js';

/**
 * A preset: how one agent CLI is driven headless — its command line (an argument array), how it gets
 * the prompt (argument, stdin or file), how it resumes a session by id, which limits it enforces itself,
 * and how its machine-readable event stream is read. Flags live only in the preset's file; each has a
 * fake CLI in test/fixtures/agents/ that checks them.
 */
export interface PresetInvocation {
  /** `agentCommand` split into words: the program and any arguments written with it. */
  program: readonly string[];
  /** The prompt for this run: the launch prompt, or a short continuation prompt when resuming. */
  prompt: string;
  /** A file holding `prompt` (for CLIs that read the prompt from a file, and `{promptFile}`). */
  promptFile: string;
  /** The session to resume, or null for a new one. */
  resumeSessionId: string | null;
  /** A session name the launcher chose, for CLIs that name sessions instead of reporting an id. */
  newSessionName: string;
  model: string | undefined;
  limits: AgentLimits;
  /** `agent.args` from the config, appended to the preset's own arguments. */
  args: readonly string[];
  /**
   * fed's own bubblewrap sandbox wraps the run: a CLI with a sandbox of its own (codex) is told to leave
   * it off, since it cannot nest one inside fed's and fed's already confines it.
   */
  sandboxed: boolean;
  /** The agent runs as root (uid 0), as in most containers: some CLIs refuse some modes then (claude). */
  asRoot: boolean;
  /**
   * The team's work leaves the codebase as it is (a deliverable or consultant team: read-only study, the
   * document in its own workspace); a coding team's edits it. What a CLI that allows tools by name allows.
   */
  readOnlyCodebase: boolean;
  /** fed's MCP server for this run, when the preset takes one (`mcp`) and `agent.mcp` is not false. */
  mcp: McpServer | null;
}

/**
 * `fed mcp` for one run, as a CLI's MCP configuration names a stdio server: the team's `fed` (the one on
 * the agent's PATH, which goes through the broker in the sandbox) with `mcp`, and the environment that
 * makes it the team's. `inherit` names what the server must get from the agent's own environment but no
 * argument or file may hold (the broker's token, a backend's credentials: other teams can read this
 * team's files), for the CLIs that pass a server only the variables they are told.
 */
export interface McpServer {
  /** The server's name in the CLI's configuration: its tools show as `mcp__fed__…` and the like. */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  inherit: string[];
  /** `agent.mcp: "strict"`: fed's server in place of the CLI's own (where the CLI can say so). */
  strict: boolean;
  /** The file the run's MCP configuration goes into, for the CLIs that read one (in the team's `.fed/launch/`). */
  configFile: string;
}

export interface PresetCommand {
  argv: string[];
  /** Text written to the agent's stdin before it is closed; null closes stdin at once. */
  stdin: string | null;
  /** Extra environment (e.g. a CLI's "allow every tool" setting). */
  env: Record<string, string>;
  /**
   * The session id when the launcher knows it up front — a name fed chose (goose) or an id it assigned
   * (claude `--session-id`) — so the run in progress names it before the CLI's first event.
   */
  sessionId: string | null;
  /** Files the CLI reads for this run (its MCP configuration), by absolute path: written before it starts. */
  files?: Record<string, string>;
}

/**
 * How `fed doctor` checks the installed CLI: the arguments that print its version and its helps, the
 * flags the preset passes that each help must list (a flag gone from it means the preset may be out of
 * date), and how to install it.
 */
export interface PresetCli {
  versionArgs: readonly string[];
  /** Each help the preset's command lines rely on (codex: `exec`'s and `exec resume`'s), and the flags it must list. */
  helps: readonly { args: readonly string[]; flags: readonly string[] }[];
  install: string;
  /**
   * What the CLI does when run as root (uid 0, as in most containers) and how fed runs it then: `fed
   * doctor`, run as root, notes it before a launch meets it.
   */
  asRoot?: string;
}

/** What the event stream said so far; updated event by event as the stream arrives. */
export interface StreamStats {
  sessionId: string | null;
  turns: number | null;
  /** The model the CLI said it uses. */
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
  /**
   * The session's whole cost so far, where the CLI reports that instead of this process's (Claude Code's
   * `total_cost_usd` on a resumed session counts its earlier runs too): the stream then sets `costUsd` to
   * what the session cost beyond what fed already counted for it (run-stream.ts).
   */
  sessionCostUsd: number | null;
  /** When the provider's limit resets (ISO), when the CLI reported it (Claude's `rate_limit_event.resetsAt`). */
  resetsAt: string | null;
  /** The CLI's final verdict, when its stream has one (a result event). */
  final: StreamVerdict | null;
  /** The last error the stream reported. */
  error: StreamVerdict | null;
  /**
   * An error no retry of the CLI will mend, which it would still retry (Claude Code retries a rejected key
   * ten times over minutes): the launcher ends the run at once with it.
   */
  hopeless: StreamVerdict | null;
}

export interface StreamVerdict {
  outcome: RunOutcome;
  message: string | null;
}

export type JsonEvent = Record<string, unknown>;

export interface AgentPreset {
  name: AgentPresetName;
  /** Program names (basenames) that select this preset when `agent.preset` is not set. */
  programs: readonly string[];
  /**
   * Its model provider's name in the OpenTelemetry GenAI conventions (`gen_ai.provider.name`: claude's is
   * `anthropic`), where they have one; the run's span and metrics name the preset otherwise (run-trace.ts).
   */
  provider?: string;
  /**
   * The hosts the CLI needs to reach its model provider: all a sandboxed run of it may reach under the
   * network policy `"provider"` (docs/agents.md#the-network-policy).
   */
  providerHosts: readonly string[];
  /**
   * What the CLI needs from the user's home to authenticate, relative to it: brought read-only into the
   * agent's own home in the sandbox (agent-home.ts; `agent.homeFiles` replaces the list). A key in the
   * environment (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) reaches the agent as it is.
   */
  homeFiles: readonly string[];
  /**
   * Variables through which the user moves a folder of the CLI's out of the home, by that folder
   * (`{ CODEX_HOME: '.codex' }`): its home files come from there, and in the sandbox the variable names
   * the folder in the agent's own home (agent-home.ts).
   */
  homeVariables?: Readonly<Record<string, string>>;
  /** `json`: stdout is JSON lines read by `onEvent`; `text`: plain lines read by `onText` (if any). */
  stream: 'json' | 'text';
  /** Whether the CLI resumes a session by id. */
  resumable: boolean;
  /** Limits the CLI enforces itself when given (the launcher enforces the others from the stream). */
  nativeLimits: { maxTurns: boolean; maxCostUsd: boolean };
  /** How `fed doctor` checks the CLI; absent for fed-agent and custom commands. */
  cli?: PresetCli;
  /** The CLI takes an MCP server per run (docs/agents.md): `command` then wires `invocation.mcp` when it is set. */
  takesMcp?: boolean;
  command(invocation: PresetInvocation): PresetCommand;
  onEvent?(event: JsonEvent, stats: StreamStats): void;
  onText?(line: string, stats: StreamStats): void;
  /**
   * What an exit code means by itself for this CLI, where it documents one (gemini: 53 = turn limit, 41 =
   * no credentials); `stderr`: the lines it wrote there, its own words for the reason.
   */
  exitVerdict?(code: number, stderr: readonly string[]): StreamVerdict | undefined;
  /**
   * A wait the CLI keeps in silence, and where it says what it waits on (OpenCode waits out a rate
   * limit's `retry-after` — an hour, if the provider says so — with nothing on stdout, saying so only in
   * its own log): once stdout has been silent for `afterMs`, the launcher asks `verdict` — with the
   * agent's environment, the time of its last output and its session — and ends the run with the verdict
   * it gives.
   */
  silentWait?: {
    afterMs: number;
    verdict(env: NodeJS.ProcessEnv, since: Date, sessionId: string | null): StreamVerdict | undefined;
  };
  /**
   * The longest rate limit the CLI waits out itself before it gives up (Claude Code retries a limit that
   * lifts within 60 s): one it gave up on lasts longer, so fed's guess of when it lifts starts beyond it.
   */
  waitsOutRateLimitsMs?: number;
}

export function emptyStats(): StreamStats {
  return {
    sessionId: null,
    turns: null,
    model: null,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    costUsd: null,
    sessionCostUsd: null,
    resetsAt: null,
    final: null,
    error: null,
    hopeless: null,
  };
}

export const str = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
export const num = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
export const obj = (value: unknown): JsonEvent =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonEvent) : {};

/** Add to a counter that may not have been reported yet. */
export function add(current: number | null, amount: number | null): number | null {
  return amount === null ? current : (current ?? 0) + amount;
}

/** `[flag, value]` when the value is set, else nothing: for optional flags in an argument array. */
export function flag(name: string, value: string | number | undefined | null): string[] {
  return value === undefined || value === null ? [] : [name, String(value)];
}
