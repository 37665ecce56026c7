import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { initFederation, launchTeam, onboardTeam, openFederation, runActors, sendSignal } = await import('fed');
const { judgeTeam, readRegistry, runCli, waitForConsumer, workspacePaths } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { tempDir } = await import('../helpers/temp-dir.js');
const { fakeAgent, federationWithMission } = await import('../helpers/launch-federation.js');

const HISTORY = 150;

/**
 * A team with a long history: its mission and HISTORY reports applied and acknowledged by its actor, then
 * what the test sends after. `fed serve` judges a team again at every change of it: a judgement that read
 * every signal of the inbox cost more with every message the team had ever had.
 */
async function teamWithHistory() {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root);
  const entry = await onboardTeam(fed, { domain: 'docs' }, { durable: false });
  const send = (type: 'directive' | 'report', subject: string) =>
    sendSignal(fed, { to: 'docs', type, subject }, { durable: false });
  await send('directive', 'Document the API');
  for (let i = 0; i < HISTORY; i++) await send('report', `Status ${i}`);
  await runActors(fed, { once: true, durable: false });
  const team = () => readRegistry(root).teams.find((t) => t.domainId === entry.domainId)!;
  return { fed, send, team, inbox: workspacePaths(entry.location).inbox };
}

describe('judging whether a team has work', () => {
  it('reads only the unacknowledged directives of its inbox, not its history', async () => {
    const { fed, send, team, inbox } = await teamWithHistory();
    const first = await send('directive', 'Add the examples');
    await send('report', 'An unacknowledged report');
    await send('directive', 'Then the changelog');

    const { value: candidate, calls } = await counted(() => judgeTeam(fed, team()));

    expect(candidate.skip).toBeUndefined();
    // The oldest directive its lifecycle has not applied is the work waiting.
    expect(candidate.waitingDirective?.id).toBe(first.message.id);
    const opened = calls.filter((c) => c.op === 'openSync' && c.path.startsWith(`${inbox}/`)).map((c) => c.path);
    // The two directives waiting, and no report, no ack, nothing of the history.
    expect(opened).toHaveLength(2);
    expect(opened.every((path) => path.includes('-directive-'))).toBe(true);
  });

  it('takes no acknowledged directive for work: the consumer would never apply it', async () => {
    const { fed, send, team } = await teamWithHistory();
    const sent = await send('directive', 'Acknowledged before it was applied');
    await fed.backend.signals
      .inbox({ id: 'docs', entry: team() })
      .acknowledge([{ file: sent.file, path: sent.inboxPath, message: sent.message }]);

    const candidate = await judgeTeam(fed, team());

    expect(candidate.skip).toBeUndefined();
    expect(candidate.waitingDirective).toBeUndefined();
  });
});

describe('judging whether a complete team has a new mission', () => {
  it('reads no report of its history, only its newest directives', async () => {
    const { root, config } = await federationWithMission();
    const fed = openFederation(root);
    for (let i = 0; i < HISTORY; i++)
      await sendSignal(fed, { to: 'docs', type: 'report', subject: `Status ${i}` }, { durable: false });
    const done = await launchTeam(fed, 'docs', { config, agent: fakeAgent('complete'), pollMs: 50 });
    expect(done.state).toBe('complete');
    const team = () => readRegistry(root).teams.find((t) => t.domainId === 'docs')!;
    const inbox = workspacePaths(team().location).inbox;
    const opened = (calls: { op: string; path: string }[]) =>
      calls.filter((c) => c.op === 'openSync' && c.path.startsWith(`${inbox}/`)).map((c) => c.path);

    // Nothing new since it completed: skipped, having read its mission's directive (and its ack) at most.
    const idle = await counted(() => judgeTeam(fed, team()));
    expect(idle.value.skip).toBe('already complete');
    expect(opened(idle.calls).length).toBeLessThanOrEqual(4);
    // Its lifecycle is read once: the judgement hands what it read to the look for a new mission.
    expect(idle.calls.filter((c) => c.op === 'openSync' && c.path.endsWith('/lifecycle.json'))).toHaveLength(1);

    // A new directive after the completion is its new mission, found by reading about as much.
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'Document it again' }, { durable: false });
    const judged = await counted(() => judgeTeam(fed, team()));
    expect(judged.value).toMatchObject({ newRun: true, newMission: { subject: 'Document it again' } });
    expect(opened(judged.calls).length).toBeLessThanOrEqual(4);
  });
});

describe('a launch waiting for the running consumer of a team with a long history', () => {
  it('reads only the signals that wait, and none once nothing waits', async () => {
    const { fed, send, team, inbox } = await teamWithHistory();
    const opened = (calls: { op: string; path: string }[]) =>
      calls.filter((c) => c.op === 'openSync' && c.path.startsWith(`${inbox}/`)).map((c) => c.path);

    // Nothing waits: it goes on at once, having opened no file of the inbox.
    const idle = await counted(() => waitForConsumer(fed.backend, team(), 1_000));
    expect(opened(idle.calls)).toEqual([]);

    // A directive no consumer applies: it looks again until its limit, each look reading only that one.
    await send('directive', 'Add the examples');
    const waiting = opened((await counted(() => waitForConsumer(fed.backend, team(), 50))).calls);
    expect(waiting.length).toBeGreaterThan(0);
    expect(waiting.every((path) => path.includes('-directive-add-the-examples'))).toBe(true);
  });
});

describe('a launch of a team with a long history', () => {
  it('reads no signal of its history while its consumer applies what is new and its agent runs', async () => {
    const { fed, send, inbox } = await teamWithHistory();
    await send('directive', 'Add the examples');
    // Its agent may reach any host: the launch needs no sandbox of its own network (nor bubblewrap).
    writeFileSync(
      join(fed.root, 'federate.config.json'),
      JSON.stringify({ agent: { teams: { docs: { network: 'open' } } } }),
    );
    const out = { stdout: '', stderr: '' };
    const write = (key: keyof typeof out) => (text: string) => void (out[key] += text);

    // In-process, where the reads can be counted; with a PATH, where the agent and the sandbox are found.
    const { calls } = await counted(() =>
      runCli(['launch', '--team', 'docs', '--agent', 'true', '--json', '--root', fed.root], {
        stdout: write('stdout'),
        stderr: write('stderr'),
        terminal: write('stdout'),
        env: { FED_TELEMETRY_ENABLED: 'false', PATH: process.env.PATH },
        cwd: fed.root,
        isTTY: false,
      }),
    );

    // Launched and judged (its agent made no progress), with warnings at most (the open network; no
    // sandbox where bubblewrap is missing).
    expect(out.stderr).toContain('warning: team "docs" has the network policy "open"');
    expect(out.stderr.split('\n').filter((line) => line && !line.startsWith('warning: '))).toEqual([]);
    expect(JSON.parse(out.stdout)).toMatchObject({ team: 'docs' });
    const opened = calls.filter((c) => c.op === 'openSync' && c.path.startsWith(`${inbox}/`)).map((c) => c.path);
    // The directive the launch's consumer applies, and no signal of the history. (The consumer checks each
    // ack once, as it starts: one that is broken keeps its signal from being taken as acknowledged.)
    expect(opened.some((path) => path.includes('-directive-add-the-examples'))).toBe(true);
    expect(opened.filter((path) => path.includes('-report-') && !path.endsWith('.ack'))).toEqual([]);
    expect(new Set(opened).size).toBe(opened.length);
  });
});
