import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ActionRefusal,
  type ActionResult,
  type DispatchState,
  type FederationView,
  getTeam,
  type PlanProposalView,
  startUiServer,
  type SteeringView,
  type UiServer,
} from 'fed/testing';
import { type Federation, listSignals, openFederation, setTeamStatus } from 'fed';
import { signalFederation } from '../helpers/signal-federation.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { tinyAssets, uiSession } from '../helpers/ui-server-fixtures.js';

/**
 * The dashboard's steering routes (issue 52): onboarding with a mission, directives, the plan, schedules
 * and the dispatcher's state — each the CLI's library operation, journaled as the dashboard's, behind the
 * same token and Origin rules as the buttons, and a bad request refused with nothing written.
 */
const servers: UiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(options: { dispatch?: { state(): DispatchState } } = {}) {
  const { root } = await signalFederation(['docs']);
  // A small codebase for the plan and the areas: two folders of src/.
  writeTree(root, {
    'src/api/index.ts': 'export const api = 1;\nexport const more = 2;\n',
    'src/web/index.ts': 'export const web = 1;\n',
  });
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const server = await startUiServer(fed, { assetsDir: tinyAssets(), ...options });
  servers.push(server);
  const { origin, cookie } = uiSession(server);
  /** A POST as the page's form sends it: the session cookie and the page's Origin. */
  const post = async (path: string, body: unknown, headers: Record<string, string> = { cookie, origin }) => {
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', ...headers },
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text.startsWith('{') ? JSON.parse(text) : text) as ActionResult | ActionRefusal,
    };
  };
  const json = async <T>(path: string) => {
    const response = await fetch(`${origin}${path}`, { headers: { cookie } });
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  return { root, fed, server, origin, cookie, post, json };
}

/** What a refused request must leave as it was: the registry, the config, the journal and docs' inbox. */
async function written(fed: Federation, root: string) {
  const registry = await fed.backend.registry.read();
  const inbox = await fed.backend.signals.inbox({ id: 'docs', entry: getTeam(registry, 'docs') }).list();
  return {
    teams: registry.teams.map((team) => team.domainId),
    config: readFileSync(join(root, 'federate.config.json'), 'utf8'),
    journal: (await fed.backend.journal.read()).filter((record) => record.kind === 'action'),
    inbox: inbox.signals.length,
  };
}

const ROUTES: [string, unknown][] = [
  ['/api/teams', { team: 'web', subject: 'Document the web app' }],
  ['/api/directives', { to: 'docs', subject: 'Cover the errors' }],
  ['/api/plan/apply', { teams: 2 }],
  ['/api/schedules', { to: 'docs', subject: 'Nightly refresh', cron: '0 3 * * *' }],
  ['/api/schedules/remove', { id: 'nightly-refresh' }],
];

describe('fed ui: the steering routes are guarded as the buttons are', () => {
  it('refuses each POST without the Origin of the page (403), from another Origin (403) and without the token (401), writing nothing', async () => {
    const { fed, root, post, cookie, origin } = await serve();
    const before = await written(fed, root);
    for (const [path, body] of ROUTES) {
      expect((await post(path, body, { cookie })).status, `${path} without Origin`).toBe(403);
      expect((await post(path, body, { cookie, origin: 'http://evil.example' })).status, `${path} cross-site`).toBe(
        403,
      );
      expect((await post(path, body, { origin })).status, `${path} without the cookie`).toBe(401);
      expect((await post(path, body, { authorization: 'Bearer nope' })).status, `${path} wrong token`).toBe(401);
    }
    for (const path of ['/api/steering', '/api/plan'])
      expect((await fetch(`${origin}${path}`)).status, `GET ${path} without the token`).toBe(401);
    expect(await written(fed, root)).toEqual(before);
  });

  it('refuses bad input with a 4xx saying what is wrong, writing nothing', async () => {
    const { fed, root, post, origin, cookie } = await serve();
    const before = await written(fed, root);
    const refusals: [string, unknown, number, RegExp][] = [
      ['/api/teams', { team: 'web' }, 400, /mission needs a subject/],
      ['/api/teams', { team: 'Web App', subject: 'x' }, 400, /team: expected a slug/],
      ['/api/teams', { team: 'web', area: 'src/nowhere' }, 400, /no folder "src\/nowhere"/],
      ['/api/teams', { team: 'web', area: '../elsewhere' }, 400, /inside the codebase/],
      ['/api/teams', { team: 'meta', subject: 'x' }, 400, /reserved/],
      ['/api/teams', { team: 'docs', subject: 'x' }, 409, /already registered/],
      ['/api/teams', { team: 'web', subject: 'x', launch: true }, 400, /launch/],
      // The team's own agent and limits: checked before the team is made.
      ['/api/teams', { team: 'web', subject: 'x', maxTurns: 2.5 }, 400, /maxTurns: expected a whole number/],
      ['/api/teams', { team: 'web', subject: 'x', preset: 'hal' }, 400, /preset: expected one of claude/],
      ['/api/teams', { team: 'web', subject: 'x', maxCostUsd: -1 }, 400, /maxCostUsd: expected a cost in USD > 0/],
      ['/api/teams', { team: 'docs', subject: 'x', model: 'opus' }, 409, /already registered/],
      ['/api/directives', { to: 'docs' }, 400, /subject/],
      ['/api/directives', { to: 'nobody', subject: 'x' }, 404, /nobody/],
      ['/api/directives', { to: 'docs', subject: 'two\nlines' }, 400, /one line/],
      ['/api/plan/apply', { teams: 0 }, 400, /teams/],
      ['/api/schedules', { to: 'docs', subject: 'x' }, 400, /exactly one trigger/],
      ['/api/schedules', { to: 'docs', subject: 'x', cron: '0 3 * * *', onRef: 'main' }, 400, /exactly one trigger/],
      ['/api/schedules', { to: 'docs', subject: 'x', onRef: 'main', timezone: 'UTC' }, 400, /cron expression only/],
      ['/api/schedules', { to: 'docs', subject: 'x', cron: '99 99 * * *' }, 400, /cron|99/],
      ['/api/schedules', { to: 'docs', subject: 'x', cron: '0 3 * * *', timezone: 'Mars/Olympus' }, 400, /time zone/],
      ['/api/schedules', { to: 'nobody', subject: 'x', cron: '0 3 * * *' }, 404, /nobody/],
      ['/api/schedules/remove', { id: 'nightly' }, 404, /no schedule "nightly"/],
      ['/api/schedules/remove', {}, 400, /id: expected a schedule id, got nothing/],
    ];
    for (const [path, body, status, message] of refusals) {
      const refused = await post(path, body);
      expect(refused.status, `${path} ${JSON.stringify(body)}`).toBe(status);
      expect(refused.body, `${path} ${JSON.stringify(body)}`).toMatchObject({ ok: false, message });
    }
    const notJson = await fetch(`${origin}/api/teams`, {
      method: 'POST',
      body: 'team=web',
      headers: { cookie, origin },
    });
    expect(notJson.status).toBe(400);
    expect((await fetch(`${origin}/api/plan?teams=zero`, { headers: { cookie } })).status).toBe(400);
    expect(await written(fed, root)).toEqual(before);
  });
});

describe('fed ui: steering', () => {
  it('onboards a team with its mission — given, or a plan’s for its area — and journals it as the dashboard’s', async () => {
    const { fed, post } = await serve();
    const given = await post('/api/teams', {
      team: 'web',
      archetype: 'deliverable',
      placement: 'directory',
      subject: 'Document the web app',
      body: 'Its pages and routes.',
    });
    expect(given).toMatchObject({
      status: 200,
      body: { ok: true, message: expect.stringMatching(/^onboarded web \(deliverable, directory\)/) },
    });
    const area = await post('/api/teams', { team: 'api', area: 'src/api' });
    expect(area.status).toBe(200);

    const registry = await fed.backend.registry.read();
    const missions = async (team: string) =>
      (await fed.backend.signals.inbox({ id: team, entry: getTeam(registry, team) }).list()).signals.map((s) => ({
        from: s.message.from,
        type: s.message.type,
        subject: s.message.subject,
        body: s.message.body,
      }));
    expect(await missions('web')).toEqual([
      { from: 'meta', type: 'directive', subject: 'Document the web app', body: 'Its pages and routes.' },
    ]);
    expect(await missions('api')).toEqual([
      { from: 'meta', type: 'directive', subject: 'Document src/api/', body: expect.stringContaining('src/api/') },
    ]);
    const journal = (await fed.backend.journal.read()).filter((record) => record.kind === 'action');
    expect(journal).toEqual([
      expect.objectContaining({ action: 'onboard', source: 'ui', team: 'web', signalId: expect.any(String) }),
      expect.objectContaining({ action: 'onboard', source: 'ui', team: 'api', signalId: expect.any(String) }),
    ]);
  });

  it('sends a directive to a team once per id, journaled once', async () => {
    const { fed, post } = await serve();
    const id = '6f1c2a9e-3b4d-4e5f-8a6b-7c8d9e0f1a2b';
    const sent = await post('/api/directives', { to: 'docs', subject: 'Cover the errors', body: 'All of them.', id });
    expect(sent).toMatchObject({ status: 200, body: { ok: true } });
    const again = await post('/api/directives', { to: 'docs', subject: 'Cover the errors', body: 'All of them.', id });
    expect(again.body).toMatchObject({ ok: true, message: expect.stringContaining('already delivered') });
    const inbox = await fed.backend.signals
      .inbox({ id: 'docs', entry: getTeam(await fed.backend.registry.read(), 'docs') })
      .list();
    expect(inbox.signals.map((s) => [s.message.id, s.message.type, s.message.from])).toEqual([
      [id, 'directive', 'meta'],
    ]);
    expect((await fed.backend.journal.read()).filter((record) => record.kind === 'action')).toEqual([
      expect.objectContaining({ action: 'directive', team: 'docs', signalId: id }),
    ]);
  });

  it("refuses a directive in the request's own fields, not the CLI's options", async () => {
    const { fed, post } = await serve();
    const id = '0b7e3c1d-2a4f-4b6c-9d8e-1f2a3b4c5d6e';
    expect((await post('/api/directives', { to: 'docs', subject: 'First', id })).status).toBe(200);
    const reused = await post('/api/directives', { to: 'docs', subject: 'Second', id });
    expect(reused).toMatchObject({ status: 400, body: { code: 'SIGNAL_ID_REUSED' } });
    expect((reused.body as ActionRefusal).message).toMatch(/to send a new one, leave out id$/);

    await setTeamStatus(fed, 'docs', { type: 'ARCHIVE' });
    const archived = await post('/api/directives', { to: 'docs', subject: 'Third' });
    expect(archived).toMatchObject({ status: 400, body: { code: 'TEAM_ARCHIVED' } });
    // The command it quotes keeps its option: it runs as written.
    expect((archived.body as ActionRefusal).message).toMatch(
      /^recipient \(to\): team "docs" is archived; .*fed signal list --team docs\)$/,
    );
  });

  it('proposes the plan and applies it as fed plan --apply does; the Federation view shows it applied', async () => {
    const { fed, post, json } = await serve();
    const proposed = await json<PlanProposalView>('/api/plan?teams=2');
    expect(proposed.plan.teams.map((team) => [team.team, team.areas.map((a) => a.path)])).toEqual([
      ['api-docs', ['src/api']],
      ['web-docs', ['src/web']],
    ]);
    const applied = await post('/api/plan/apply', { teams: 2 });
    expect(applied.body).toEqual({
      ok: true,
      message: 'api-docs: onboarded, mission sent\nweb-docs: onboarded, mission sent',
    });
    const again = await post('/api/plan/apply', { teams: 2 });
    expect((again.body as ActionResult).message).toContain('already registered, has the mission');
    expect((await json<FederationView>('/api/federation')).plan).toMatchObject({ teams: proposed.plan.teams });
    const journal = (await fed.backend.journal.read()).filter((record) => record.kind === 'action');
    expect(journal.map((record) => [record.action, record.team])).toEqual([
      ['apply-plan', 'api-docs'],
      ['apply-plan', 'web-docs'],
      ['apply-plan', 'api-docs'],
      ['apply-plan', 'web-docs'],
    ]);
  });

  it('applies the plan once when its button is clicked twice at once: each team is sent its mission once', async () => {
    const { fed, post } = await serve();
    const applies = await Promise.all([1, 2, 3, 4].map(() => post('/api/plan/apply', { teams: 2 })));
    for (const applied of applies) expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const messages = applies.map((applied) => (applied.body as ActionResult).message);
    for (const team of ['api-docs', 'web-docs']) {
      expect(
        messages.filter((message) => message.includes(`${team}: onboarded, mission sent`)),
        team,
      ).toHaveLength(1);
      expect((await listSignals(fed, { team })).signals, team).toHaveLength(1);
    }
  });

  it('adds a schedule to federate.config.json, lists it, and removes it', async () => {
    const { fed, root, post, json } = await serve();
    const added = await post('/api/schedules', {
      to: 'docs',
      subject: 'Nightly refresh',
      cron: '0 3 * * *',
      timezone: 'Europe/Paris',
    });
    expect(added.body).toEqual({
      ok: true,
      message: 'added schedule nightly-refresh: a directive to docs on "0 3 * * *" (Europe/Paris); fed serve sends it',
    });
    const config = () =>
      JSON.parse(readFileSync(join(root, 'federate.config.json'), 'utf8')) as { schedules?: { id: string }[] };
    expect(config().schedules).toEqual([
      expect.objectContaining({ id: 'nightly-refresh', to: 'docs', cron: '0 3 * * *' }),
    ]);
    const listed = await json<SteeringView>('/api/steering');
    expect(listed.schedules).toEqual([
      {
        id: 'nightly-refresh',
        to: 'docs',
        subject: 'Nightly refresh',
        trigger: 'on "0 3 * * *" (Europe/Paris)',
        next: expect.stringMatching(/^\d{4}-/),
        lastFired: null,
      },
    ]);
    expect((await post('/api/schedules/remove', { id: 'nightly-refresh' })).body).toMatchObject({ ok: true });
    expect(config().schedules).toBeUndefined();
    expect((await json<SteeringView>('/api/steering')).schedules).toEqual([]);
    expect(
      (await fed.backend.journal.read())
        .filter((record) => record.kind === 'action')
        .map((r) => [r.action, r.team, r.schedule]),
    ).toEqual([
      ['add-schedule', 'docs', 'nightly-refresh'],
      ['remove-schedule', 'docs', 'nightly-refresh'],
    ]);
  });

  it("shows a schedule to an archived team as never sent, and the team's Remove takes its schedules out", async () => {
    const { fed, post, json } = await serve();
    expect((await post('/api/schedules', { to: 'docs', subject: 'docs nightly', cron: '0 3 * * *' })).status).toBe(200);
    await setTeamStatus(fed, 'docs', { type: 'ARCHIVE' });
    expect((await json<SteeringView>('/api/steering')).schedules).toEqual([
      expect.objectContaining({
        id: 'docs-nightly',
        next: 'never: team "docs" is archived (archived teams receive no signals)',
      }),
    ]);
    const removed = await post('/api/actions', { action: 'remove', team: 'docs' });
    expect(removed.body).toMatchObject({
      ok: true,
      message: expect.stringMatching(/; its schedules \(docs-nightly\) taken out of federate\.config\.json$/),
    });
    expect((await json<SteeringView>('/api/steering')).schedules).toEqual([]);
  });

  it('shows the dispatcher handed in (fed serve --ui), and says none dispatches under plain fed ui', async () => {
    const plain = await serve();
    const view = await plain.json<SteeringView>('/api/steering');
    expect(view).toMatchObject({
      dispatch: null,
      teams: ['docs'],
      archetypes: expect.arrayContaining(['deliverable']),
    });
    const state: DispatchState = {
      capacity: 2,
      running: [{ team: 'docs', work: 'mission', subject: 'Document it', since: new Date().toISOString() }],
      queued: [],
    };
    const served = await serve({ dispatch: { state: () => state } });
    expect((await served.json<SteeringView>('/api/steering')).dispatch).toEqual(state);
  });
});
