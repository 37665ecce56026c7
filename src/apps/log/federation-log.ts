import { displayLine, SUBJECT_CHARS } from '../../core/display-line.js';
import { InvalidInputError, UnknownTeamError } from '../../core/errors.js';
import { DURATION_EXAMPLES, parseDuration } from '../../core/schema/duration.js';
import { findTeam } from '../../core/find-team.js';
import type { FederationBackend } from '../../ports/federation-backend.js';
import { META } from '../../core/schema/common.js';
import { everyParty, type SignalParty } from '../../core/resolve-party.js';
import type { SignalBox, SignalMessage } from '../../core/schema/signal.js';
import type { SignalEntry } from '../../ports/signal-transport.js';
import type { FederationRecord } from '../../core/schema/federation-journal.js';
import type { JournalLine } from '../../core/schema/lifecycle-state.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';

/**
 * `fed log`: what happened in the federation, in time order, from what the backend already records — the
 * federation journal (onboarding, status changes, launches and their outcomes, retries, removals), every
 * team's lifecycle journal (each transition and recorded event, earlier runs' included) and the signal
 * boxes (each signal sent, and acknowledged).
 */
export type LogEntryKind = FederationRecord['kind'] | 'transition' | 'event' | 'signal-sent' | 'signal-acknowledged';

/** How much of an agent's note or failure reason an entry shows. */
const NOTE_CHARS = 200;

export interface LogEntry {
  at: string;
  team: string;
  kind: LogEntryKind;
  /**
   * One line for people: what others wrote in it (a subject, a mission, a note) on one line, line breaks
   * blanked and cut when long (`displayLine`, as `fed signal list` shows a subject); `fed signal show` has it whole.
   */
  text: string;
  /** Unique per entry, so a follower prints each once. */
  key: string;
  /** The other party of a signal. */
  peer?: string;
}

export interface LogQuery {
  /** Only entries about this team (signals to or from it included). */
  team?: string;
  /** Only entries at or after this time. */
  since?: Date;
  /** Signals sent and acknowledged too (default true): reading them lists every inbox. */
  signals?: boolean;
  /**
   * The boxes' archives too (default true). A follow leaves them out after its first read: a signal is
   * archived only long after it was live, so its entries were printed then.
   */
  archived?: boolean;
}

/** `--since`: an ISO date-time, or a duration back from now (`30s`, `10m`, `2h`, `1d`, `1w`). */
export function parseSince(text: string, now = new Date()): Date {
  // A duration as every other option takes one (the `ms` library: 90s, 10m, 1.5h, 2d, 1w), back from now.
  const back = parseDuration(text.trim());
  if (back !== undefined) return new Date(now.getTime() - back);
  const at = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(at)) {
    throw new InvalidInputError(
      `--since: expected an ISO date-time (2026-11-22T10:00:00Z) or a duration back from now (${DURATION_EXAMPLES}), got "${text}"`,
    );
  }
  return new Date(at);
}

export interface FederationLog {
  /** Oldest first. */
  entries: LogEntry[];
  /** What the log could not show: lines of the federation journal that are not records, skipped. */
  warnings: string[];
}

export async function readFederationLog(fed: Federation, query: LogQuery = {}): Promise<FederationLog> {
  const { backend } = fed;
  const registry = await backend.registry.read();
  const { records, skipped } = await backend.journal.readCounted();
  const warnings = skipped
    ? [
        `skipped ${skipped} line(s) of ${backend.journal.location} that are not federation-journal records (fed doctor reports them)`,
      ]
    : [];
  let wanted: string | undefined;
  if (query.team !== undefined) {
    // A removed team is known by its records only: its log is what the federation journal kept.
    wanted =
      findTeam(registry, query.team)?.domainId ??
      (query.team === META || records.some((r) => r.team === query.team) ? query.team : undefined);
    if (!wanted)
      throw new UnknownTeamError(
        query.team,
        registry.teams.map((t) => t.domainId),
      );
  }
  const teams = registry.teams.filter((t) => wanted === undefined || t.domainId === wanted);
  const entries = [
    ...records.map(federationEntry),
    ...(await Promise.all(teams.map((team) => lifecycleEntries(backend, team)))).flat(),
    ...(query.signals === false ? [] : await signalEntries(backend, registry.teams, query.archived ?? true)),
  ].filter(
    (e) =>
      (wanted === undefined || e.team === wanted || e.peer === wanted) &&
      (!query.since || Date.parse(e.at) >= query.since.getTime()),
  );
  // Stable: entries of the same instant keep the order their sources wrote them in.
  const sorted = entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => Date.parse(a.e.at) - Date.parse(b.e.at) || a.i - b.i)
    .map(({ e }) => e);
  return { entries: sorted, warnings };
}

function federationEntry(record: FederationRecord): LogEntry {
  const key = `fed|${record.team}|${record.kind}|${record.at}`;
  const base = { at: record.at, team: record.team, kind: record.kind, key };
  switch (record.kind) {
    case 'onboarded':
      return { ...base, text: `onboarded (${record.archetype}, ${record.placement}) at ${record.location}` };
    case 'status':
      return { ...base, text: `status ${record.from} → ${record.to}` };
    case 'launch-started':
      return {
        ...base,
        key: `${key}|${record.runId}`,
        text: `launch started in ${record.stateBefore} (run ${record.runId})`,
      };
    case 'launch-ended':
      return {
        ...base,
        key: `${key}|${record.runId}`,
        text: `launch ended: ${record.result} (${record.outcome}), now ${record.stateAfter}${record.reason ? `: ${displayLine(record.reason, NOTE_CHARS)}` : ''}`,
      };
    case 'retried':
      return {
        ...base,
        text: `retried: run ${record.run} started with the mission "${displayLine(record.mission, SUBJECT_CHARS)}"${record.keptAs.length ? `; earlier files kept as ${record.keptAs.join(', ')}` : ''}`,
      };
    case 'removed': {
      const deleted = `${record.branch ? ` and branch ${record.branch}` : ''} deleted${record.forced ? ' (--force)' : ''}`;
      const settings =
        (record.agentSettingsCleared ? '; its agent settings taken out of federate.config.json' : '') +
        (record.schedulesRemoved?.length
          ? `; its schedules (${record.schedulesRemoved.join(', ')}) taken out of federate.config.json`
          : '');
      return {
        ...base,
        text:
          record.workspaceDeleted === false
            ? `removed: registry entry${deleted}; its workspace ${record.location} was already gone${settings}`
            : `removed: workspace ${record.location}${deleted}${settings}`,
      };
    }
    case 'scheduled':
      return {
        ...base,
        key: `${key}|${record.signalId}`,
        text: `schedule ${record.schedule} sent the directive "${displayLine(record.subject, SUBJECT_CHARS)}" (${record.commit ? `its ref moved to ${record.commit.slice(0, 12)}` : `due ${record.due}`})`,
      };
    case 'moved':
      return {
        ...base,
        text: `moved from host ${record.from ?? '(none recorded)'} to ${record.to}${record.by === 'failover' ? ' by failover' : ''}: workspace ${record.location}`,
      };
    case 'action':
      return {
        ...base,
        text: `${record.action} from the ${record.source === 'ui' ? 'dashboard' : record.source}${record.schedule ? ` (schedule ${record.schedule})` : ''}${record.signalId ? ` (signal ${record.signalId})` : ''}`,
      };
  }
}

/** The team's lifecycle journal, with those of its earlier runs (kept by `fed team retry`). */
async function lifecycleEntries(backend: FederationBackend, team: RegistryEntry): Promise<LogEntry[]> {
  const kept = await backend.lifecycles.keptRuns(team);
  const journals: { run: string; lines: JournalLine[] }[] = [
    ...(await Promise.all(
      kept.map(async ({ run }) => ({ run: `run-${run}`, lines: await backend.lifecycles.journal(team, run) })),
    )),
    { run: 'current', lines: await backend.lifecycles.journal(team) },
  ];
  return journals.flatMap(({ run, lines }) =>
    lines.map((line): LogEntry => {
      const moved = line.from !== line.to;
      const via =
        line.source === 'signal'
          ? ` (signal ${line.signalId ?? ''})`
          : line.source === 'event'
            ? ' (fed event)'
            : ' (fed team)';
      return {
        at: line.at,
        team: team.domainId,
        kind: moved ? 'transition' : 'event',
        text: `${moved ? `${line.from} → ${line.to}` : `in ${line.from}`}  ${line.event}${via}${line.note ? ` — ${displayLine(line.note, NOTE_CHARS)}` : ''}`,
        key: `life|${team.domainId}|${run}|${line.seq}`,
      };
    }),
  );
}

/**
 * Every signal sent: each inbox's (meta's and the teams'), live and archived (`fed signal archive` keeps
 * history, not forgets it) — sent at its timestamp, acknowledged at its ack's time — and, from the
 * outboxes, the signals no inbox holds (a removed team's inbox went with it, even when a new team has its
 * id; the sender's copy says it was sent).
 */
async function signalEntries(
  backend: FederationBackend,
  teams: readonly RegistryEntry[],
  archived: boolean,
): Promise<LogEntry[]> {
  const parties = everyParty(teams);
  const { archive } = backend.signals;
  // Each listing on its own: an archive that cannot be read hides nothing of the live box.
  const listed = async (list: () => Promise<{ signals: SignalEntry[] }>): Promise<SignalEntry[]> =>
    list().then(
      (read) => read.signals,
      () => [],
    );
  const boxOf = async (party: SignalParty, box: SignalBox): Promise<SignalEntry[]> => [
    ...(await listed(() => (box === 'inbox' ? backend.signals.inbox(party) : backend.signals.outbox(party)).list())),
    ...(archived && archive.supported ? await listed(() => archive.of(party).list(box)) : []),
  ];
  // By key: an archive interrupted between its link and its unlink leaves a signal in both places.
  const entries = new Map<string, LogEntry>();
  const add = (m: SignalMessage) => {
    for (const entry of signalLogEntries(m)) if (!entries.has(entry.key)) entries.set(entry.key, entry);
  };
  // The recipients' copies first (they carry the acknowledgments); then the senders', for what no present
  // inbox holds: a signal to a team since removed — even when a new team has its id — or one whose
  // recipient's copy is gone.
  const outboxes: SignalEntry[][] = [];
  for (const party of parties) {
    for (const { message } of await boxOf(party, 'inbox')) add(message);
    outboxes.push(await boxOf(party, 'outbox'));
  }
  for (const { message } of outboxes.flat()) add(message);
  return [...entries.values()];
}

/** A signal's entries: sent, and acknowledged when its copy carries the acknowledgment (an inbox copy). */
function signalLogEntries(m: SignalMessage): LogEntry[] {
  const key = `sig|${m.from}|${m.to}|${m.id}`;
  const sent: LogEntry = {
    at: m.timestamp,
    team: m.from,
    peer: m.to,
    kind: 'signal-sent',
    text: `sent ${m.type} to ${m.to}: ${displayLine(m.subject, SUBJECT_CHARS)}`,
    key: `${key}|sent`,
  };
  if (!m.acknowledged || !m.acknowledged_at) return [sent];
  return [
    sent,
    {
      at: m.acknowledged_at,
      team: m.to,
      peer: m.from,
      kind: 'signal-acknowledged',
      text: `acknowledged ${m.type} from ${m.from}: ${displayLine(m.subject, SUBJECT_CHARS)}`,
      key: `${key}|ack`,
    },
  ];
}
