import { describe, expect, it } from 'vitest';
import {
  type Federation,
  initFederation,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  type SignalInbox,
} from 'fed';
import { TeamWakeEvent } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/fixture-process.js';

const TEAMS = 12;
/** Longer than any test here: a rescan (which consumes every team) never runs unless a test asks for one. */
const NO_RESCAN_MS = 600_000;

/** `fed` whose inbox reads (one per consume pass) are counted by team. */
function countingReads(fed: Federation): { fed: Federation; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const { signals } = fed.backend;
  const inbox: typeof signals.inbox = (workspace, options) =>
    new Proxy(signals.inbox(workspace, options), {
      get(target, key, receiver) {
        if (key === 'pendingBatches' || key === 'list')
          return ((...args: unknown[]) => {
            reads.set(workspace.id, (reads.get(workspace.id) ?? 0) + 1);
            return (target[key] as (...a: unknown[]) => unknown).apply(target, args);
          }) as SignalInbox['pendingBatches'];
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  const transport = new Proxy(signals, {
    get: (target, key, receiver) => (key === 'inbox' ? inbox : (Reflect.get(target, key, receiver) as unknown)),
  });
  return { fed: { ...fed, backend: { ...fed.backend, signals: transport } } as Federation, reads };
}

async function federation(): Promise<{ root: string; teams: string[] }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const teams: string[] = [];
  for (let i = 0; i < TEAMS; i++)
    teams.push((await onboardTeam(openFederation(root), { domain: `team-${i}` }, { durable: false })).domainId);
  return { root, teams };
}

/**
 * A watching `fed actors run` (and `fed serve`, which runs it) wakes only the actor whose inbox heard
 * something: an idle federation of a thousand teams stays idle. Before, every wake-up consumed every team —
 * and each watch is told once when it goes live, so a start alone was a thousand passes over all of them.
 */
describe('a watching actors run wakes only the team that heard something', () => {
  it('a signal to one team consumes that team alone; the start consumed each team a bounded number of times', async () => {
    const { root, teams } = await federation();
    const { fed, reads } = countingReads(openFederation(root));
    const stop = new AbortController();
    const applied: string[] = [];
    const running = runActors(fed, {
      signal: stop.signal,
      durable: false,
      rescanMs: NO_RESCAN_MS,
      streamSteps: true,
      onResult: (result) => void applied.push(...result.steps.map(() => result.team)),
    });
    try {
      // Started: every team consumed once by the join, then once for its watch going live.
      await waitFor(() => teams.every((team) => (reads.get(team) ?? 0) >= 2), 30_000, 'every actor to start');
      // Nothing more comes on its own.
      await new Promise((resolve) => setTimeout(resolve, 300));
      for (const team of teams) expect(reads.get(team), team).toBeLessThanOrEqual(3);
      const before = new Map(reads);

      await sendSignal(
        openFederation(root),
        { to: teams[3]!, type: 'directive', subject: 'only you' },
        { durable: false },
      );
      await waitFor(() => applied.includes(teams[3]!), 30_000, 'the directive to be applied');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const changed = teams.filter((team) => reads.get(team) !== before.get(team));
      expect(changed).toEqual([teams[3]]);
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);

  it('a TeamWakeEvent consumes its team alone; any other wake event consumes every team', async () => {
    const { root, teams } = await federation();
    const { fed, reads } = countingReads(openFederation(root));
    const stop = new AbortController();
    const wake = new EventTarget();
    const running = runActors(fed, { signal: stop.signal, durable: false, rescanMs: NO_RESCAN_MS, wakeOn: wake });
    const settled = async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return new Map(reads);
    };
    try {
      await waitFor(() => teams.every((team) => (reads.get(team) ?? 0) >= 2), 30_000, 'every actor to start');
      let before = await settled();
      wake.dispatchEvent(new TeamWakeEvent(teams[5]!));
      await waitFor(() => reads.get(teams[5]!) !== before.get(teams[5]!), 30_000, 'team-5 to be consumed');
      const after = await settled();
      expect(teams.filter((team) => after.get(team) !== before.get(team))).toEqual([teams[5]]);

      before = after;
      wake.dispatchEvent(new Event('wake'));
      await waitFor(
        () => teams.every((team) => reads.get(team) !== before.get(team)),
        30_000,
        'every team to be consumed',
      );
    } finally {
      stop.abort();
      await running;
    }
  }, 60_000);
});
