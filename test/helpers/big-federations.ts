/**
 * The federations the start-up benchmark (and the tests that it reads only what it needs) run `fed event` and `fed team show` in, beyond a small one:
 *
 * - **many teams**: `teams` deliverable teams onboarded by fed (`onboardTeam`, without fsyncs), the first
 *   `ready` of them with their mission applied (waiting in preparing for PLAN_READY);
 * - **long history**: a consultant — the long-lived archetype — that has answered `answered` questions:
 *   each was a question signal from meta (in its inbox, acknowledged), an answer (a report in its outbox
 *   and meta's inbox), two lifecycle transitions (journal lines, and a report to meta for each, sent by
 *   fed itself), an agent run (the team's run journal) and a launch (two federation journal records). It
 *   waits in `ready`; `askQuestion` brings the next question (as the team actor does), after which
 *   `fed event ANSWER_SENT` is a real transition back to `ready`.
 *
 * The questions, answers, runs and launches are written in their documented layouts (each checked against
 * fed's own schemas); the lifecycle is applied by fed in batches (`applyLifecycleInputs`), which sends the
 * transition reports to meta.
 */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyLifecycleInputs,
  type Federation,
  federationRecordSchema,
  initFederation,
  onboardTeam,
  openFederation,
  type RegistryEntry,
  sendSignal,
  signalAckSchema,
  type SignalMessage,
  signalMessageSchema,
} from 'fed';
import {
  ackFileName,
  deliveryDirectory,
  federationPaths,
  launchRunSchema,
  META,
  sentFactOf,
  sentFactSchema,
  signalFileName,
  toJsonText,
  workspacePaths,
} from 'fed/testing';

const ENV = { ...process.env, FED_TELEMETRY_ENABLED: 'false' };
const NOT_DURABLE = { durable: false } as const;

/** A federation of `teams` teams; the first `ready` wait in preparing for PLAN_READY. Returns their ids. */
export async function manyTeamsFederation(teams: number, ready: number): Promise<{ root: string; ready: string[] }> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-teams-'));
  initFederation(root, {}, ENV);
  const fed = openFederation(root, { env: ENV });
  const entries: RegistryEntry[] = [];
  for (let t = 0; t < teams; t++)
    entries.push(await onboardTeam(fed, { domain: `team-${String(t).padStart(4, '0')}` }, NOT_DURABLE));
  for (const team of entries.slice(0, ready)) await assignMission(fed, team);
  return { root, ready: entries.slice(0, ready).map((t) => t.domainId) };
}

/** A consultant that answered `answered` questions, waiting in `ready`. */
export async function longHistoryFederation(answered: number): Promise<{ root: string; team: string }> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-history-'));
  initFederation(root, {}, ENV);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const at = (i: number) => new Date(start + i * 60_000).toISOString();
  // The history took months: each report fed sends for it has a second of its own, as it would have had.
  let tick = 0;
  const fed = openFederation(root, { env: ENV, now: () => new Date(start + tick++ * 1_000) });
  const team = await onboardTeam(fed, { domain: 'helper', archetypeId: 'consultant' }, NOT_DURABLE);
  await assignMission(fed, team);
  await applyLifecycleInputs(
    fed,
    team,
    [
      { source: 'event', event: { type: 'INDEXING_STARTED', at: at(0) } },
      { source: 'event', event: { type: 'INDEX_READY', filesIndexed: 420, at: at(0) } },
    ],
    NOT_DURABLE,
  );
  const boxes = new History(root, team);
  const BATCH = 250;
  for (let first = 0; first < answered; first += BATCH) {
    const inputs = [];
    const acknowledged = new Set<string>();
    for (let i = first; i < Math.min(first + BATCH, answered); i++) {
      const question = boxes.question(i, at(i + 1));
      acknowledged.add(question.id);
      inputs.push({ source: 'signal' as const, signal: question });
      const answer = boxes.answer(i, question, at(i + 1));
      inputs.push({ source: 'event' as const, event: { type: 'ANSWER_SENT', reportId: answer.id, at: at(i + 1) } });
      boxes.run(i, at(i + 1));
    }
    // The last answer on its own, as a consumer applies one: the stored envelope owes that answer's report only.
    const last = inputs.length > 2 && first + BATCH >= answered ? inputs.splice(-1) : [];
    await applyLifecycleInputs(fed, team, inputs, { ...NOT_DURABLE, acknowledged });
    if (last.length > 0) await applyLifecycleInputs(fed, team, last, NOT_DURABLE);
  }
  return { root, team: team.domainId };
}

/** Question `i` arrives and the team actor applies it: the consultant is researching it. */
export async function askQuestion(root: string, team: string, i: number): Promise<void> {
  const fed = openFederation(root, { env: ENV });
  const entry = await fed.team(team);
  const question = new History(root, entry).question(i, new Date().toISOString());
  await applyLifecycleInputs(fed, entry, [{ source: 'signal', signal: question }], {
    ...NOT_DURABLE,
    acknowledged: new Set([question.id]),
  });
}

export async function assignMission(fed: Federation, team: RegistryEntry): Promise<void> {
  const sent = await sendSignal(
    fed,
    { to: team.domainId, type: 'directive', subject: 'Mission', body: 'Describe it' },
    NOT_DURABLE,
  );
  await applyLifecycleInputs(fed, team, [{ source: 'signal', signal: sent.message }], NOT_DURABLE);
}

/** A consultant's past, written in file-signal-v1's layout and the journals' formats. */
class History {
  private readonly facts: string;
  private readonly team: ReturnType<typeof workspacePaths>;
  private readonly meta: ReturnType<typeof workspacePaths>;
  private readonly ack = toJsonText(
    signalAckSchema.parse({ acknowledged: true, acknowledged_at: '2026-01-02T00:00:00.000Z' }),
  );

  constructor(
    private readonly root: string,
    private readonly entry: RegistryEntry,
  ) {
    this.facts = deliveryDirectory(root);
    this.team = workspacePaths(entry.location);
    this.meta = workspacePaths(root);
    for (const dir of [
      this.facts,
      this.team.inbox,
      this.team.outbox,
      this.meta.inbox,
      this.meta.outbox,
      this.team.logs,
    ])
      mkdirSync(dir, { recursive: true });
  }

  /** Question `i` from meta, in the team's inbox (acknowledged) and meta's outbox. */
  question(i: number, timestamp: string): SignalMessage {
    return this.signal(
      { id: uuid(1, i), timestamp, from: META, to: this.entry.domainId, type: 'question' },
      `Where is feature ${i} implemented?`,
      `Question ${i} of the benchmark.\n`,
    );
  }

  /** The team's answer to `question`, in meta's inbox (acknowledged) and the team's outbox. */
  answer(i: number, question: SignalMessage, timestamp: string): SignalMessage {
    return this.signal(
      { id: uuid(2, i), timestamp, from: this.entry.domainId, to: META, type: 'report' },
      `re: ${question.subject}`,
      `Feature ${i} lives in src/feature-${i}.ts, lines 1–40.\n`.repeat(4),
    );
  }

  /** The agent run that answered question `i`, and its launch in the federation journal. */
  run(i: number, at: string): void {
    const runId = `run-${i}`;
    const run = launchRunSchema.parse({
      runId,
      preset: 'claude',
      command: ['claude', '-p', '<prompt: .fed/launch/prompt.md>'],
      sessionId: `session-${i}`,
      resumedSessionId: i > 0 ? `session-${i - 1}` : null,
      outcome: 'no-progress',
      reason: null,
      exitCode: 0,
      signal: null,
      turns: 12,
      model: 'claude-sonnet-4',
      inputTokens: 18_000,
      outputTokens: 1_200,
      costUsd: 0.07,
      stateBefore: 'researching',
      stateAfter: 'ready',
      progressed: true,
      sandboxed: false,
      transcriptPath: `.fed/logs/runs/${runId}.jsonl`,
      startedAt: at,
      endedAt: at,
    });
    appendFileSync(this.team.runsJournal, `${JSON.stringify(run)}\n`);
    const base = { at, team: this.entry.domainId, runId };
    const records = [
      federationRecordSchema.parse({ ...base, kind: 'launch-started', stateBefore: 'researching' }),
      federationRecordSchema.parse({
        ...base,
        kind: 'launch-ended',
        result: 'waiting',
        outcome: 'no-progress',
        stateAfter: 'ready',
        reason: null,
      }),
    ];
    appendFileSync(federationPaths(this.root).federationJournal, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }

  private signal(
    head: Pick<SignalMessage, 'id' | 'timestamp' | 'from' | 'to' | 'type'>,
    subject: string,
    body: string,
  ): SignalMessage {
    const message = signalMessageSchema.parse({ ...head, subject, body, protocol: 'file-signal-v1' });
    const name = signalFileName(message);
    const text = toJsonText(message);
    const [inbox, outbox] =
      message.to === META ? [this.meta.inbox, this.team.outbox] : [this.team.inbox, this.meta.outbox];
    writeFileSync(join(this.facts, `${message.id}.sent.json`), toJsonText(sentFactSchema.parse(sentFactOf(message))));
    writeFileSync(join(inbox, name), text);
    writeFileSync(join(outbox, name), text);
    writeFileSync(join(inbox, ackFileName(name)), this.ack);
    return message;
  }
}

function uuid(kind: number, i: number): string {
  return `00000000-0000-4000-800${kind}-${String(i).padStart(12, '0')}`;
}
