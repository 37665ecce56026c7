import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Federation } from 'fed';
import { processIsAlive, processStartTime, writeCurrentRun, type ServeEvent } from 'fed/testing';
import { Dispatcher, type LaunchEnd } from '../../../src/apps/serve/dispatcher.js';
import { stopAbandonedAgent } from '../../../src/apps/serve/abandoned-launch.js';
import { killEach, waitFor } from '../../helpers/fixture-process.js';
import { federationWithWork } from '../../helpers/signal-federation.js';
import { recordingLaunches } from '../../helpers/recording-launches.js';

/**
 * Dispatcher.stop when launches cannot record their end (a broker down holds every write of theirs for a
 * minute): after the grace each gets a bounded wrap-up, then is given up — its agent stopped, its run left
 * owed — and the stop says which teams were paused and which owed, never one for the other.
 */
const PAUSED: LaunchEnd = {
  ok: true,
  result: { outcome: 'paused', state: 'paused', reason: 'interrupted', resumeAt: null },
};

/** An agent's stand-in: a process leading its own group, as a launch's supervisor does; killed when the test ends. */
function agentProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  child.unref();
  onTestFinished(() => killEach([child.pid!]));
  return child.pid!;
}

/** Runs the dispatcher until both teams run; their launches as `launch` makes them. */
async function dispatching(
  launch: (fed: Federation, team: string, signal: AbortSignal) => Promise<LaunchEnd>,
  options: { wrapUpMs: number },
) {
  const fed = await federationWithWork(['api', 'web']);
  const events: ServeEvent[] = [];
  const abandoned: string[] = [];
  const dispatcher = new Dispatcher(fed, {
    capacity: 2,
    onEvent: (event) => events.push(event),
    launch: (candidate, signal) => launch(fed, candidate.team.domainId, signal),
    wrapUpMs: options.wrapUpMs,
    abandon: async (team) => {
      abandoned.push(team.domainId);
      await stopAbandonedAgent(team, 1_000);
    },
  });
  const stop = new AbortController();
  const running = dispatcher.run(stop.signal);
  await waitFor(() => dispatcher.runningTeams().length === 2, 10_000, 'both teams running');
  stop.abort();
  await running;
  return { dispatcher, events, abandoned };
}

describe('Dispatcher.stop with launches that cannot record their end', () => {
  it('gives up on a launch still writing after its wrap-up, stops its agent, and says its run owed; the other paused', async () => {
    let pid = 0;
    let endWeb: ((end: LaunchEnd) => void) | undefined;
    const { dispatcher, events, abandoned } = await dispatching(
      async (fed, team, signal) => {
        if (team === 'api') return new Promise((resolve) => signal.addEventListener('abort', () => resolve(PAUSED)));
        // web's agent runs, its run in progress recorded; its end never comes while the broker is down.
        pid = agentProcess();
        const entry = await fed.team(team);
        writeCurrentRun(fed, entry, {
          runId: 'run-1',
          preset: 'custom',
          command: ['agent'],
          pid,
          processStart: processStartTime(pid) ?? null,
          launcherPid: process.pid,
          sessionId: null,
          resumedSessionId: null,
          stateBefore: 'preparing',
          sandboxed: false,
          transcriptPath: `${entry.location}/transcript.jsonl`,
          promptPath: null,
          startedAt: new Date().toISOString(),
        });
        return new Promise((resolve) => (endWeb = resolve));
      },
      { wrapUpMs: 200 },
    );
    await waitFor(() => pid !== 0 && endWeb !== undefined, 10_000, "web's agent to start");

    const asked = Date.now();
    const summary = await dispatcher.stop(0, new AbortController().signal);
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(summary).toEqual({ paused: ['api'], owed: ['web'] });
    expect(abandoned).toEqual(['web']);
    // Exited: the test, its parent, may not have collected it yet (a zombie answers kill(pid, 0) until then).
    expect(processIsAlive(pid)).toBe(false);
    expect(dispatcher.runningTeams()).toEqual([]);

    // Its late end (the broker closed under it) is no news: the stop told it owed.
    endWeb!({ ok: false, reason: 'the connection closed' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.filter((e) => e.kind === 'ended').map((e) => (e as { team: string }).team)).toEqual(['api']);
  });

  it('a cut after the grace ends the wrap-up at once; one that cut the grace leaves the wrap-up its bound', async () => {
    const hang = () => new Promise<LaunchEnd>(() => undefined);
    const cutWrapUp = await dispatching(hang, { wrapUpMs: 60_000 });
    const now = new AbortController();
    const asked = Date.now();
    const stopping = cutWrapUp.dispatcher.stop(0, now.signal);
    setTimeout(() => now.abort(), 100);
    expect(await stopping).toEqual({ paused: [], owed: [] });
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(cutWrapUp.abandoned.sort()).toEqual(['api', 'web']);

    const cutGrace = await dispatching(hang, { wrapUpMs: 300 });
    const early = new AbortController();
    early.abort();
    const started = Date.now();
    await cutGrace.dispatcher.stop(60_000, early.signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(cutGrace.abandoned.sort()).toEqual(['api', 'web']);
  });
});

describe('Dispatcher.run with a read the broker holds', () => {
  it('returns as soon as it is stopped, starting nothing after: the held read is not waited for', async () => {
    const fed = await federationWithWork(['api']);
    // The registry read an unreachable broker holds until it is back (a minute or more).
    let held: (() => void) | undefined;
    const { registry } = fed.backend;
    vi.spyOn(registry, 'read').mockImplementationOnce(
      () => new Promise((resolve, reject) => (held = () => void registry.read().then(resolve, reject))),
    );
    const { launch, launched } = recordingLaunches(PAUSED);
    const dispatcher = new Dispatcher(fed, { capacity: 1, onEvent: () => undefined, launch });
    const stop = new AbortController();
    const running = dispatcher.run(stop.signal);
    await waitFor(() => held !== undefined, 10_000, 'the registry read');
    const asked = Date.now();
    stop.abort();
    await running;
    // Not held until the read answers (a minute or more): a loaded machine may still take a while.
    expect(Date.now() - asked).toBeLessThan(10_000);
    // The broker back: the read answers late, and nothing is started by it.
    held!();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(launched).toEqual([]);
    expect(dispatcher.runningTeams()).toEqual([]);
  });
});
