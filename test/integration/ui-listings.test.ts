import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { openFederation, sendSignal } = await import('fed');
const { getTeam, UiViews, workspacePaths } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { signalFederation } = await import('../helpers/signal-federation.js');

const TEAMS = ['docs', 'api', 'web'];

/**
 * The dashboard's board counts every team's boxes and its queue looks at every inbox for stuck signals:
 * one look at each inbox serves both (a first page over a thousand teams spent ~0.1 s listing each again).
 */
describe('fed ui: the board and the queue', () => {
  it("list each team's inbox once, at first and after a change to it", async () => {
    const { root } = await signalFederation(TEAMS);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    for (const team of TEAMS)
      await sendSignal(fed, { to: team, type: 'directive', subject: `Document ${team}` }, { durable: false });
    const registry = await fed.backend.registry.read();
    const inboxOf = (team: string) => workspacePaths(getTeam(registry, team).location).inbox;
    const listings = (calls: Array<{ op: string; path: string }>, team: string) =>
      calls.filter((call) => call.op === 'readdirSync' && call.path === inboxOf(team)).length;

    const views = new UiViews(fed);
    const first = await counted(() => Promise.all([views.board(), views.needsYou()]));
    expect(first.value[0].teams).toHaveLength(TEAMS.length);
    for (const team of TEAMS) expect(listings(first.calls, team), team).toBe(1);

    await sendSignal(fed, { to: 'api', type: 'question', subject: 'Which endpoints?' }, { durable: false });
    views.invalidate({ scope: 'team', team: 'api', what: 'inbox' });
    const changed = await counted(() => Promise.all([views.board(), views.needsYou()]));
    expect(changed.value[0].teams.find((team) => team.id === 'api')!.inbox.total).toBe(2);
    expect(TEAMS.map((team) => listings(changed.calls, team))).toEqual([0, 1, 0]);
  });
});
