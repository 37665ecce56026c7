import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LaunchRun } from '../../../core/schema/launch-run.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import { UnknownTeamError } from '../../../core/errors.js';
import { lifecycleFor } from '../../../engine/archetypes/catalog.js';
import { markdownLimitProblem } from '../../../engine/deliverable/markdown-limits.js';
import type { Federation } from '../../../engine/context.js';
import { localTranscript } from '../../hosts/team-transcripts.js';
import { readCurrentRun } from '../../launch/run-records.js';
import { readRunHistory } from '../../../engine/runs/run-history.js';
import { readFederationLog } from '../../log/federation-log.js';
import { runDurationMs } from '../../runs/run-totals.js';
import type { JournalEntryView, RunView, TeamPageView, TranscriptChunk } from '../api-types.js';
import { signalRows } from './signal-views.js';
import type { UiViews } from './ui-views.js';

/** How much of a transcript or deliverable one answer carries; the page asks for the rest with `from`. */
const CHUNK_BYTES = 256 * 1024;
/** The boxes the team page lists: the newest signals of each. */
const BOX_ROWS = 50;

/** A team's page: its card, its journal (the log merge, without signals), runs, transcript, deliverable and boxes. */
export async function teamPageView(fed: Federation, views: UiViews, name: string): Promise<TeamPageView> {
  const registry = await fed.backend.registry.read();
  const entry = await fed.team(name, registry);
  const facts = await views.team(entry.domainId);
  // Removed between the two reads: as unknown as a team that never was.
  if (!facts)
    throw new UnknownTeamError(
      name,
      (await fed.backend.registry.read()).teams.map((team) => team.domainId),
    );
  const { entries: log } = await readFederationLog(fed, { team: entry.domainId, signals: false });
  const journal = log.map((line): JournalEntryView => ({
    at: line.at,
    origin: line.kind === 'transition' || line.kind === 'event' ? 'lifecycle' : 'federation',
    text: line.text,
    ...(line.kind === 'transition' ? { to: /\u2192 (\S+)/.exec(line.text)?.[1] } : {}),
  }));
  const party = { id: entry.domainId, entry };
  const [inbox, outbox] = await Promise.all([
    fed.backend.signals.inbox(party).list(),
    fed.backend.signals.outbox(party).list(),
  ]);
  const newest = (signals: typeof inbox.signals, box: 'inbox' | 'outbox') =>
    signals
      .slice(-BOX_ROWS)
      .reverse()
      .map((signal) => ({ entry: signal, box }));
  return {
    card: facts.card,
    machineId: lifecycleFor(entry.archetypeId)?.id ?? null,
    journal,
    runs: readRunHistory(entry.location).map(runView).reverse(),
    transcript: await transcriptChunk(fed, entry, 0),
    deliverable: deliverable(fed, entry),
    inbox: await signalRows(fed, registry, newest(inbox.signals, 'inbox')),
    outbox: await signalRows(fed, registry, newest(outbox.signals, 'outbox')),
  };
}

/** `GET /api/teams/<id>/transcript?from=`: what the running (or last) run's transcript holds past `from`. */
export async function transcriptView(fed: Federation, name: string, from: number): Promise<TranscriptChunk | null> {
  return transcriptChunk(fed, await fed.team(name), from);
}

async function transcriptChunk(fed: Federation, entry: RegistryEntry, from: number): Promise<TranscriptChunk | null> {
  const current = readCurrentRun(entry.location);
  const run = current ?? readRunHistory(entry.location).at(-1);
  if (!run) return null;
  // A finished run that another host ran (the team moved here) is read from the backend's copy, fetched once.
  const path = current ? run.transcriptPath : await localTranscript(fed, entry, run.transcriptPath);
  const text = path === undefined ? Buffer.alloc(0) : readFrom(path, from);
  return { runId: run.runId, text: text.toString('utf8'), next: from + text.length, ended: current === undefined };
}

/** Up to CHUNK_BYTES of a file from `from`, cut at the last whole line (or UTF-8 character) read. */
function readFrom(path: string, from: number): Buffer {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return Buffer.alloc(0);
  }
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES);
    const read = readSync(fd, buffer, 0, CHUNK_BYTES, from);
    const chunk = buffer.subarray(0, read);
    if (read < CHUNK_BYTES) return chunk;
    const lastLine = chunk.lastIndexOf(0x0a);
    return lastLine >= 0 ? chunk.subarray(0, lastLine + 1) : chunk;
  } finally {
    closeSync(fd);
  }
}

function deliverable(fed: Federation, entry: RegistryEntry): TeamPageView['deliverable'] {
  const path = join(entry.location, fed.config.deliverable);
  const size = statSync(path, { throwIfNoEntry: false });
  if (!size?.isFile()) return null;
  const markdown = size.size <= CHUNK_BYTES ? readFileSync(path, 'utf8') : null;
  return {
    path,
    markdown,
    sizeBytes: size.size,
    // The page parses the Markdown in the browser: one the checker refuses before parsing would freeze it.
    notRendered: markdown === null ? null : (markdownLimitProblem(markdown) ?? null),
  };
}

function runView(run: LaunchRun): RunView {
  return {
    runId: run.runId,
    preset: run.preset,
    sandboxed: run.sandboxed,
    sandboxAllows: run.sandboxAllows ?? [],
    model: run.model,
    outcome: run.outcome,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    durationMs: runDurationMs(run),
    turns: run.turns,
    tokens: {
      input: run.inputTokens,
      output: run.outputTokens,
      cacheRead: run.cacheReadTokens,
      cacheWrite: run.cacheWriteTokens,
    },
    costUsd: run.costUsd,
    sessionId: run.sessionId,
    reason: run.reason,
  };
}
