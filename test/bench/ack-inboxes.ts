/**
 * Inboxes for the ack-by-id benches (ack.bench.ts, foreign-ack.bench.ts): a team's inbox filled with
 * unacknowledged signals, written directly (sending 100 000 would dominate the run).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { acknowledgeSignal, onboardTeam, openFederation } from 'fed';
import {
  deliveryDirectory,
  openFileBackend,
  type SentFact,
  signalDigest,
  signalFileName,
  workspacePaths,
} from 'fed/testing';
import type { SignalMessage } from 'fed';

/** The `i`th signal to `team`: ids differ between the teams `big`, `small` and any other. */
export function message(team: string, i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8${{ big: '1', small: '2' }[team] ?? '3'}00-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
    from: 'meta',
    to: team,
    type: 'report',
    subject: `Status ${i}`,
    body: 'x'.repeat(200),
    protocol: 'file-signal-v1',
  };
}

/** `count` unacknowledged signals in `team`'s inbox, each with its sent fact, as a send leaves them. */
export async function plant(
  root: string,
  team: string,
  count: number,
  /** Without them, as another tool leaves signals: no sent fact names their files. */
  sentFacts = true,
): Promise<{ inbox: string; state: string; messages: SignalMessage[] }> {
  const entry = await onboardTeam(openFederation(root), { domain: team }, { durable: false });
  const { inbox, state } = workspacePaths(entry.location);
  return { inbox, state, messages: writeSignals(root, team, inbox, 0, count, sentFacts) };
}

/** Signals `from` to `from + count - 1` of `team` written into its inbox (with their sent facts, unless not). */
function writeSignals(
  root: string,
  team: string,
  inbox: string,
  from: number,
  count: number,
  sentFacts = true,
): SignalMessage[] {
  const facts = deliveryDirectory(root);
  mkdirSync(facts, { recursive: true });
  const messages: SignalMessage[] = [];
  for (let i = from; i < from + count; i++) {
    const signal = message(team, i);
    writeFileSync(join(inbox, signalFileName(signal)), JSON.stringify(signal));
    messages.push(signal);
    if (!sentFacts) continue;
    const sent: SentFact = {
      id: signal.id,
      timestamp: signal.timestamp,
      from: 'meta',
      to: team,
      type: 'report',
      subject: signal.subject,
      digest: signalDigest(signal),
    };
    writeFileSync(join(facts, `${signal.id}.sent.json`), JSON.stringify(sent));
  }
  return messages;
}

/** Signals acknowledged per measured run (each once: a run never repeats an ack). */
export const PER_RUN = 5;

/**
 * One measured run: `perRun` acks by id in `team`'s inbox, each opening the federation and its file
 * backend afresh as `fed signal ack <id>` does, without fsync (the disk would hide the lookup's cost).
 * Returns the mean time of one ack, in ms.
 */
export function fileAckRun(
  root: string,
  team: string,
  next: () => SignalMessage,
  perRun = PER_RUN,
): () => Promise<number> {
  return async () => {
    const ids = Array.from({ length: perRun }, () => next().id);
    const started = performance.now();
    for (const id of ids)
      await acknowledgeSignal(openFederation(root, { backend: openFileBackend(root) }), team, id, { durable: false });
    return (performance.now() - started) / perRun;
  };
}

/**
 * The baseline inbox of `count` signals with sent facts: its next signal to acknowledge, oldest first.
 * Once all were acknowledged the inbox is emptied and filled with `count` new signals (new ids): an ack of
 * a signal the lifecycle applied before would apply nothing and write no envelope, less work than the ack
 * it is set against, which always takes a new signal.
 */
export async function refillingInbox(root: string, team: string, count: number): Promise<() => SignalMessage> {
  const { inbox } = await plant(root, team, 0);
  let messages: SignalMessage[] = [];
  let next = 0;
  let written = 0;
  return () => {
    if (next === messages.length) {
      rmSync(inbox, { recursive: true, force: true });
      mkdirSync(inbox, { recursive: true });
      messages = writeSignals(root, team, inbox, written, count);
      written += count;
      next = 0;
    }
    return messages[next++]!;
  };
}
