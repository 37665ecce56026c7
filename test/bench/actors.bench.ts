/**
 * Durable signals/s processed by one team actor (apply → persist → ack), beside a raw ceiling measured
 * in the same run: the least file work any crash-safe consumer must do — list the inbox, read and parse
 * each signal, create its ack file, and durably replace one state file per batch. Goal: ≥ 600/s.
 */
import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import {
  fsyncDirectory,
  getTeam,
  readRegistry,
  tempPathFor,
  unlinkQuietly,
  workspacePaths,
  writeFileAtomic,
} from 'fed/testing';
import { report } from './harness.js';

const SIGNALS = 2_000;
const BATCH = 256;

async function inboxWithSignals(): Promise<{ root: string; inbox: string }> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-actors-'));
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' });
  for (let i = 0; i < SIGNALS; i++) {
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'question', subject: `question ${i}`, body: `body ${i}` },
      { durable: false },
    );
  }
  return { root, inbox: workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox };
}

function rawCeiling(inbox: string): number {
  const state = join(inbox, '..', 'raw-state.json');
  const started = performance.now();
  const names = readdirSync(inbox)
    .filter((n) => n.endsWith('.json'))
    .sort();
  for (let i = 0; i < names.length; i += BATCH) {
    const batch = names.slice(i, i + BATCH);
    const ids: string[] = [];
    for (const name of batch) ids.push((JSON.parse(readFileSync(join(inbox, name), 'utf8')) as { id: string }).id);
    writeFileAtomic(state, JSON.stringify({ ids }));
    for (const name of batch) {
      const ack = join(inbox, `${name}.ack`);
      const tmp = tempPathFor(ack);
      writeFileAtomic(tmp, '{"acknowledged":true}', { durable: false });
      linkSync(tmp, ack);
      unlinkQuietly(tmp);
    }
    fsyncDirectory(inbox);
  }
  return SIGNALS / ((performance.now() - started) / 1000);
}

export default async function actorsBench(): Promise<void> {
  const raw = await inboxWithSignals();
  const ceiling = rawCeiling(raw.inbox);
  rmSync(raw.root, { recursive: true, force: true });

  const fed = await inboxWithSignals();
  const started = performance.now();
  const [result] = await runActors(openFederation(fed.root), { team: 'docs', once: true, batchSize: BATCH });
  const perSecond = SIGNALS / ((performance.now() - started) / 1000);
  if (result?.acknowledged !== SIGNALS) throw new Error(`expected ${SIGNALS} acks, got ${result?.acknowledged}`);
  rmSync(fed.root, { recursive: true, force: true });

  report({
    name: `team actor, ${SIGNALS} signals, durable`,
    value: perSecond,
    unit: 'signals/s',
    ceiling: { name: 'raw read+ack+batched durable state write', value: ceiling },
    goal: '≥ 600 signals/s',
    met: perSecond >= 600,
  });
}
