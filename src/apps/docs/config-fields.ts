import { BACKEND_DOCS } from '../../core/schema/config.js';
import { archetypes } from '../../engine/archetypes/catalog.js';

/** The archetypes whose teams study the codebase read-only, as the reference names them. */
const readOnlyArchetypes = archetypes
  .filter((archetype) => archetype.readOnlyCodebase)
  .map((archetype) => archetype.id)
  .join(', ');

/**
 * What each field of `federate.config.json` is for, by its path, for docs/reference/config.md. Kept here
 * rather than as `.describe()` on the schema: every command builds the config schema at start-up, and
 * a described copy of each field is one more schema to build on a path agents call at every step. The
 * reference test fails when a field of the schema has no line here, or a line names no field.
 */
export const CONFIG_FIELD_DESCRIPTIONS: Readonly<Record<string, string>> = {
  description: 'What the federation is for, in a sentence; written by `fed init --description`.',
  federationName:
    "The federation's name: the `@handle` the chat bridge answers to, and on JetStream the name every machine finds the federation by (1 to 64 letters, digits, `-`, `_`). Written by `fed init --name`.",
  agentCommand:
    'The agent `fed launch` runs for a team: a command line, split into words like a shell would but never run through one. A relative program path is resolved from the federation root, a bare name on `PATH`.',
  agent: 'How `fed launch` drives the agent CLI named by `agentCommand` (see [agents](../agents.md)).',
  'agent.preset':
    "The agent CLI preset; default: chosen from `agentCommand`'s program name (`claude`, `/opt/bin/codex`, …), else `custom`.",
  'agent.args': "Extra arguments appended to the preset's own.",
  'agent.model': "The model, passed with the CLI's model flag.",
  'agent.limits':
    'Per-run limits: passed to the CLIs that take them, enforced by the launcher for the rest; reaching one stops the agent and pauses the team.',
  'agent.limits.maxTurns': 'At most this many agent turns per run.',
  'agent.limits.maxCostUsd':
    'At most this cost per run, in USD (not enforceable for CLIs that report no cost: codex, gemini).',
  'agent.limits.maxMinutes': 'At most this wall time per run, in minutes.',
  'agent.limits.federationUsd':
    "The whole federation's spend, in USD, summed over every team's runs: once reached, a launch is refused before it starts.",
  'agent.account':
    "The CLI account the teams' agents share (default: the preset's name): a rate limit one team meets pauses the others on it until the reset.",
  'agent.fixAttempts':
    'How often a deliverable refused by the checks is handed back to the same session to fix, before the team fails.',
  'agent.sandbox': `Run every team's agent in fed's sandbox (bubblewrap): a team that studies the codebase (${readOnlyArchetypes}) writes only its own workspace, a coding team only its worktree and its branch (never the repository's config, hooks or other branches), and no agent reads your credential stores (see [threat model](../threat-model.md)). Without bubblewrap, or \`false\`, the agents run as you, said on every run; a study team's codebase is then checked before and after the run. A team's own \`agent.teams.<id>.sandbox\` overrides it.`,
  'agent.denyRead':
    "What no sandboxed agent reads, besides your credential stores (`~/.ssh`, `~/.aws`, `~/.config/gh`, … : see [threat model](../threat-model.md#reading)): `~/…` in your home, an absolute path, or one relative to the federation root (a codebase's `.env`). A folder is seen empty, a file cannot be opened; one that holds a team's workspace is refused at its launch.",
  'agent.home':
    "Where each sandboxed team's agent keeps its own home (`$HOME` in the sandbox): `<agent.home>/<team>`, a folder (or where one can be made), absolute or relative to the root; default: the team's `.fed/home`. Never the user's home, which the sandbox keeps read-only, nor in the federation root (relative paths lead out of it: `../agent-homes`), fed's installation or a system folder (see [threat model](../threat-model.md#the-agents-home)).",
  'agent.homeFiles':
    "The files of the user's home brought read-only into the agent's home, relative to the home (what its CLI needs to authenticate); default: the preset's, such as claude's `.claude/.credentials.json` and codex's `.codex/auth.json`. A folder the user moved with `CODEX_HOME`, `CLAUDE_CONFIG_DIR` or an `XDG_*` variable is read there (see [threat model](../threat-model.md#the-agents-home)).",
  'agent.mcp':
    "Give the agent fed's MCP server (`fed mcp`: the `fed_*` tools) for each run, where its CLI takes one per run (see [agents](../agents.md#the-server-for-each-run)): `true` (default) beside the CLI's own servers, `\"strict\"` instead of them (claude's `--strict-mcp-config`; the other CLIs as `true`), `false` not at all.",
  'agent.network':
    'What a sandboxed agent may reach (see [agents](../agents.md#the-network-policy)): `"provider"` (default) the hosts its CLI\'s preset lists for its model provider, `"none"` no host, `{ "allow": ["host", "*.example.com", "host:port"] }` exactly these (with `"provider": true` the provider\'s too), `"open"` any host, unfiltered. A policy that cannot be enforced (no bubblewrap, no network namespace, or one set while `agent.sandbox` is `false`) refuses the launch; with the sandbox off and none set, the agent has the machine\'s network.',
  'agent.network.provider': 'With `allow`: the provider\'s hosts too, as under `"provider"`.',
  'agent.network.allow':
    "The hosts allowed: a name, `*.<name>` (whole labels), an IP address (`[v6]` with a port), each with `:port` or any port; `127.0.0.1:<port>` or `localhost:<port>`, a port of this machine's loopback (a local model server), forwarded into the sandbox's own.",
  'agent.teams':
    'Per team, by its id, what differs from the federation\'s agent settings (see [agents](../agents.md#a-teams-own-agent)): `{ "<team>": { "command": "codex", "model": "…", "limits": { "maxTurns": 20 }, "network": <policy>, "sandbox": false | { "allow": ["unix-sockets"] } } }`. Written by `fed team onboard --agent --preset --model --max-turns --max-cost-usd --max-minutes` and the dashboard\'s onboarding form; `fed team show` says where each setting of a team comes from.',
  telemetry:
    'Metrics and traces through OpenTelemetry, sent over OTLP/HTTP (see [operations](../operations.md#telemetry)).',
  'telemetry.enabled': 'Export metrics and traces; `FED_TELEMETRY_ENABLED=true|false` overrides it.',
  'telemetry.collector': 'Where the metrics and spans go.',
  'telemetry.collector.endpoint':
    "The collector's base URL (metrics are POSTed to `<endpoint>/v1/metrics`, spans to `<endpoint>/v1/traces`); `OTEL_EXPORTER_OTLP_ENDPOINT` overrides it.",
  chatConfig:
    'The chat channel meta posts status summaries and the items waiting on a person to, and takes commands from (see [operations](../operations.md#chat)).',
  'chatConfig.teamId': 'The id of the chat team the channel belongs to.',
  'chatConfig.channelId': 'The channel id, shaped like `19:…@thread.tacv2`.',
  'chatConfig.command':
    'The agent-host session that posts to and reads the channel: a command line where `{prompt}` stands for the prompt (without it, the prompt is the last argument). Default: `agentCommand`, unless that is the built-in `fed-agent`.',
  'chatConfig.timeoutSeconds':
    'How long one agent-host session may take before it is killed; default 120, at most 2073600 (24 days).',
  notify:
    'A command told once about each item that starts waiting on a person — a coding team in review, a paused or failed team, a question to meta, an escalation (see [operations](../operations.md#being-told)).',
  'notify.command':
    'The command line (split like `agentCommand`, never run by a shell), run in the federation root with the item as JSON on its stdin and `FED_ROOT`, `FED_NOTIFY_ID`, `FED_NOTIFY_KIND`, `FED_NOTIFY_TEAM` in its environment; exit 0 means told.',
  'notify.timeoutSeconds':
    'How long one run may take before it is killed (with everything it started); default 30, at most 2073600 (24 days). A run that fails or times out is a warning, and the item is tried again on a later pass.',
  playbookSkill: 'The skill in `.fed/skills/` (without `.md`) whose text the launch prompt includes.',
  deliverable: "The file name of a deliverable team's document in its workspace.",
  federationReport:
    'The file name of the federation report meta writes at the root when the deliverable teams are done (`fed run`).',
  deliverableSchema:
    "A JSON Schema (path relative to the federation root) a deliverable must match: a Markdown deliverable's structural summary, or a `.json` deliverable as it is.",
  importHook:
    'A module (TypeScript or JavaScript, relative to the federation root) whose hooks `fed launch`, `fed run` and `fed actors run` call (`onNeedsYou`, once per item waiting on a person: `fed launch`, `fed run` and `fed monitor`).',
  signalDeadlines:
    'How long a signal of each type may wait: a question for its answer, any other type for its acknowledgment (see [delivery](../delivery.md#delivery-states-replies-and-deadlines)). Types left out keep their default.',
  'signalDeadlines.directive': 'A duration (`30m`, `2h`, `7d`) or `"none"`; default `10m`.',
  'signalDeadlines.question': 'A duration or `"none"`; default `30m`.',
  'signalDeadlines.report': 'A duration or `"none"`; default: none.',
  'signalDeadlines.alert': 'A duration or `"none"`; default: none.',
  signalArchive:
    'When present, every `fed monitor` cycle archives the signals that are done (acknowledged or answered) and older than `olderThan`.',
  'signalArchive.olderThan': 'A duration with a unit (`7d`).',
  schedules:
    'Directives `fed serve` sends by itself, each `{id, to, subject, body?, cron, timezone?}` or `{id, to, subject, body?, onRef}`: on a cron expression (five fields, or six with seconds; a time zone like `Europe/Paris`) or whenever a git ref of the codebase moves; `since` is when it was added. Edited with `fed schedule add|remove` (see [operations](../operations.md#schedules)).',
  serve:
    "How this machine's `fed serve` serves a federation shared across machines (JetStream; see [operations](../operations.md#many-machines)). Optional.",
  'serve.hostName':
    "This machine's name among the hosts (default: the system's host name): `fed serve` announces itself under it, and the teams onboarded in this working directory are placed on it. `fed serve --host-name` overrides it for one server.",
  'serve.heartbeat':
    'How often `fed serve` renews its host record, a duration with a unit (default `5s`): at least `100ms`, at most `8d` (a host is lost after three heartbeats, and fed waits 24 days at most).',
  'serve.hostLostAfter':
    'A host not heard from for this long is lost: its teams show under "Needs you" (default: three of its heartbeats; at most `24d`).',
  'serve.failover':
    '`"manual"` (default): a person moves a lost host\'s teams with `fed team move`; `"auto"`: a server moves them to its own host once the host is lost.',
  'serve.pushTeamBranches':
    "`true`: as a worktree team's agent commits and when its launch ends, `fed serve` pushes the team's branch (`fed/<domain>`) to the codebase's remote recorded at onboarding, so `fed team move` can make the team's workspace on another host from it, and a worktree team may be unplaced (`fed team onboard --any-host`). Default `false`: fed never pushes by itself, and a worktree team whose commit is on no branch or tag of the remote is not moved (see [operations](../operations.md#many-machines)).",
  'serve.workAckWait':
    "How long a server that took an unplaced team's work (`fed team onboard --any-host`) may go silent before another host takes the work, a duration with a unit (default `30s`; at least `1s`, at most `24d`); while the agent runs, the server renews it every third of it.",
  backend:
    'Where signals, the registry and lifecycle state live; absent means files (see [JetStream](../jetstream.md)).',
  'backend.type': `${BACKEND_DOCS.map((backend) => backend.type).join(' or ')}.`,
  // Each backend's fields, from its schema's module (src/core/schema/backends/).
  ...Object.fromEntries(BACKEND_DOCS.flatMap((backend) => Object.entries(backend.fields))),
};
