/**
 * The dashboard's wire contract (`fed ui`): what the server's JSON routes return and its POST route
 * takes, shared by the server (src/apps/ui/server/) and the page (src/apps/ui/client/). Type-only: the
 * page's bundle imports nothing from fed at run time. Fields are only ever added.
 *
 * Routes (all but `/?token=` need the session cookie, or `Authorization: Bearer <token>`):
 *   GET  /?token=<t>              sets the HttpOnly SameSite=Strict cookie, redirects to /
 *   GET  / /needs-you /team/<id> /signals /federation /steer    the page shell (client/pages.ts; the page routes itself)
 *   GET  /assets/<file>           the bundled script, style, fonts and diagram layouts (dist/ui/)
 *   GET  /api/board               BoardView
 *   GET  /api/needs-you           NeedsYouView
 *   GET  /api/teams/<id>          TeamPageView
 *   GET  /api/teams/<id>/transcript?from=<byte offset>   TranscriptChunk
 *   GET  /api/signals?before=<cursor>&limit=<n>&team=<id>  SignalsView (newest first, paged)
 *   GET  /api/signals/<id>        SignalThreadView
 *   GET  /api/federation          FederationView
 *   GET  /assets/diagrams/<machineId>.json   DiagramLayout (laid out at build time)
 *   GET  /events                  Server-Sent Events: `change` (LiveEvent), `reset`, `stopped`
 *                                 (the change feed broke: `{message}`, no change follows); honours Last-Event-ID
 *   POST /api/actions             ActionRequest → ActionResult (200) or ActionRefusal (400/404/409; 500 when
 *                                 a file of the federation cannot be used: every route answers so then)
 *
 * Steering (issue 52: giving the fleet work from the page; each POST answers ActionResult or ActionRefusal):
 *   GET  /api/steering            SteeringView (the dispatcher's state under `fed serve --ui`, schedules, form choices)
 *   GET  /api/plan?teams=<n>      PlanProposalView (`fed plan`: the plan proposed now)
 *   POST /api/teams               OnboardRequest: onboard a team and send its mission
 *   POST /api/directives          DirectiveRequest: a directive from meta to a team
 *   POST /api/plan/apply          ApplyPlanRequest: `fed plan --apply`
 *   POST /api/schedules           AddScheduleRequest: `fed schedule add`
 *   POST /api/schedules/remove    RemoveScheduleRequest: `fed schedule remove`
 */
import type { UiAction } from '../../core/schema/federation-journal.js';
import type { NeedsYouItem } from '../../core/schema/needs-you.js';
import type { DeliveryState } from '../../core/schema/delivery.js';
import type { FederationChange } from '../../ports/federation-changes.js';
import type { AppliedPlan } from '../../core/schema/federation-plan.js';
import type { FederationPlan } from '../plan/plan.js';
import type { DispatchState } from '../serve/dispatcher.js';

export type { UiAction };
export type {
  UiAddScheduleRequest as AddScheduleRequest,
  UiApplyPlanRequest as ApplyPlanRequest,
  UiDirectiveRequest as DirectiveRequest,
  UiOnboardRequest as OnboardRequest,
  UiRemoveScheduleRequest as RemoveScheduleRequest,
} from '../../core/schema/ui-steering-request.js';
export type { AppliedPlan, DispatchState, FederationPlan };

/** One team as a card on the board. */
export interface TeamCard {
  id: string;
  domain: string;
  archetype: string;
  /** Registry status: active, paused, archived. */
  status: string;
  /** Lifecycle state (null: an archetype without a machine). */
  state: string | null;
  /** When the state was entered, when known. */
  since: string | null;
  mission: string | null;
  lastRun: {
    runId: string;
    outcome: string;
    endedAt: string;
    resumeAt: string | null;
    /** What its sandbox's proxy saw, in a line ("network provider: … — 3 hosts, 1 refused: …"), when a policy applied. */
    network: string | null;
  } | null;
  /** Its network policy is "open" (agent.network): a sandboxed agent of it reaches any host, as fed doctor notes. */
  networkOpen: boolean;
  /** Summed over the team's runs; null when no run reported a cost. */
  costUsd: number | null;
  healthy: boolean;
  /** Why not healthy (empty when healthy). */
  reasons: string[];
  inbox: { total: number; unacknowledged: number };
  /** The actions the card offers now (each also a CLI command). */
  actions: UiAction[];
}

export interface BoardView {
  generatedAt: string;
  /** Every team, grouped by the page by `state`; sorted by id. */
  teams: TeamCard[];
  totals: { teams: number; healthy: number; unhealthy: number; needsYou: number; costUsd: number | null };
  /** Where the federation keeps its state: `file-signal-v1` or `jetstream`. */
  backend: string;
  root: string;
}

export interface NeedsYouEntry extends NeedsYouItem {
  /** The actions offered in place, e.g. review → approve, request-changes, merge; question → answer. */
  actions: UiAction[];
  /** For `question`: who asked (the report answers them). */
  from?: string;
  /** For `question`: the question's subject and body, to answer in place. */
  subject?: string;
  body?: string;
}

export interface NeedsYouView {
  generatedAt: string;
  /** Oldest first. */
  items: NeedsYouEntry[];
  /** Teams whose files could not be read, and health problems (overdue signals, unhealthy teams). */
  problems: string[];
}

export interface SignalRow {
  id: string;
  type: 'directive' | 'question' | 'report' | 'alert';
  from: string;
  to: string;
  subject: string;
  sentAt: string;
  state: DeliveryState;
  /** The signal this one answers (`replyTo`), when it does. */
  replyTo: string | null;
}

export interface SignalsView {
  signals: SignalRow[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  next: string | null;
}

export interface SignalThreadView {
  signal: SignalRow & { body: string };
  /** Its delivery history, oldest first. */
  history: { at: string; what: string }[];
  /** Signals replying to it, oldest first. */
  replies: SignalRow[];
}

export interface JournalEntryView {
  at: string;
  /** `lifecycle` (the team's own journal) or `federation`. */
  origin: 'lifecycle' | 'federation';
  text: string;
  /** For lifecycle lines: the state entered. */
  to?: string;
}

export interface RunView {
  runId: string;
  preset: string;
  /** Run in fed's sandbox; otherwise the agent ran as the user, with the user's home. */
  sandboxed: boolean;
  /** What the team's sandbox setting allowed beyond the sandbox (`unix-sockets`). */
  sandboxAllows: string[];
  model: string | null;
  outcome: string;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  turns: number | null;
  tokens: { input: number | null; output: number | null; cacheRead: number | null; cacheWrite: number | null };
  costUsd: number | null;
  sessionId: string | null;
  reason: string | null;
}

export interface TeamPageView {
  card: TeamCard;
  /** The machine id whose diagram the page draws (`/assets/diagrams/<machineId>.json`), null without one. */
  machineId: string | null;
  journal: JournalEntryView[];
  runs: RunView[];
  /** The running (or last) agent's transcript: what exists now; the page tails it with `from`. */
  transcript: TranscriptChunk | null;
  deliverable: {
    path: string;
    markdown: string | null;
    sizeBytes: number;
    /** Why the Markdown is shown as plain text, not rendered: what `fed deliverable check` refuses it for. */
    notRendered: string | null;
  } | null;
  inbox: SignalRow[];
  outbox: SignalRow[];
}

export interface TranscriptChunk {
  runId: string;
  text: string;
  /** Pass as `from` to get what comes after. */
  next: number;
  /** The run has ended: nothing more will come. */
  ended: boolean;
}

export interface FederationView {
  /** The plan `fed plan --apply` last applied (`.fed/plan.json`, core/schema/federation-plan.ts's AppliedPlan), or null. */
  plan: AppliedPlan | null;
  /** Why `.fed/plan.json` could not be read (the file, what is wrong, how to fix it), else null; `plan` is then null. */
  planError: string | null;
  /** The federation report (Markdown), when written. */
  report: { path: string; markdown: string } | null;
  health: { teams: number; healthy: number; unhealthy: number; stuckSignals: number; problems: string[] };
  telemetry: { enabled: boolean; url: string | null; collector: string; since: string | null; error: string | null };
  /** Every team's runs, removed teams' too (`fed runs`'s federation total: what `agent.limits.federationUsd` caps). */
  runs: { total: number; costUsd: number | null; unmeasured: number };
  /**
   * The machines serving the federation (JetStream; `fed hosts`): alive, stopped or lost (no heartbeat for
   * `serve.hostLostAfter`). On files, `shared` is false and the list holds none: every team works here.
   */
  hosts: { shared: boolean; list: HostSummary[] };
}

/** One host as the Federation view lists it. */
export interface HostSummary {
  name: string;
  state: 'alive' | 'stopped' | 'lost';
  /** When it was last heard from. */
  heardAt: string;
  capacity: number;
  running: string[];
  /** The teams placed on it. */
  teams: string[];
  version: string;
}

/**
 * One SSE `change` event: its `id:` line is `<run>-<seq>`, `run` naming the server's run (Last-Event-ID
 * resumes after it; an id of another run, e.g. before a restart, gets a `reset`).
 */
export interface LiveEvent {
  seq: number;
  at: string;
  change: FederationChange;
}

export interface ActionRequest {
  action: UiAction;
  team?: string;
  /** `answer`: the question being answered (refused with another action, as each field an action does not take). */
  signalId?: string;
  /** `answer`: the report's body; `request-changes`: what to change. */
  text?: string;
  /**
   * `answer`: a UUID the page picks once per answer, the report's signal id: a retried POST (a lost
   * response) sends the report once. Declared with zod in core/schema/ui-action-request.ts.
   */
  id?: string;
}

export interface ScheduleRow {
  id: string;
  to: string;
  subject: string;
  /** `on "0 3 * * *" (Europe/Paris)`, `when main moves`. */
  trigger: string;
  /** A cron schedule's next tick (ISO), a ref one's `after <commit>`, as `fed schedule list` says it. */
  next: string;
  lastFired: string | null;
}

export interface SteeringView {
  /** What `fed serve` dispatches in this process now; null under plain `fed ui` (nothing dispatches here). */
  dispatch: DispatchState | null;
  /** federate.config.json's schedules as the file is now. */
  schedules: ScheduleRow[];
  /** Why they could not be read (a config that does not load), else null. */
  schedulesError: string | null;
  /** The teams' ids, for the forms' choices. */
  teams: string[];
  archetypes: string[];
  defaultArchetype: string;
  placements: string[];
  /** The agent presets a team's own agent may be driven by (the onboarding form's select). */
  presets: string[];
}

export interface PlanProposalView {
  plan: FederationPlan;
}

export interface ActionResult {
  ok: true;
  /** What the CLI would print for the same command. */
  message: string;
}

export interface ActionRefusal {
  ok: false;
  /** fed's error code (FedErrorCode) and its own message. */
  code: string;
  message: string;
}

/**
 * A lifecycle diagram as laid out at build time (scripts/ui-diagrams.mjs, `dist/ui/diagrams/<id>.json`,
 * served as `/assets/diagrams/<id>.json`): boxes and routes in SVG user units, top-left origin.
 */
export interface DiagramNode {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  final: boolean;
  description: string | null;
}

export interface DiagramEdge {
  id: string;
  source: string;
  target: string;
  points: { x: number; y: number }[];
  /** The events that take this transition, comma-separated. */
  label: string;
  labelX: number | null;
  labelY: number | null;
}

export interface DiagramLayout {
  machineId: string;
  version: number;
  initial: string;
  width: number;
  height: number;
  /**
   * Transitions said once instead of drawn from every state (`PAUSE from every state → paused`,
   * `RESUME: paused → the state it was entered from`).
   */
  notes: string[];
  nodes: DiagramNode[];
  edges: DiagramEdge[];
}
