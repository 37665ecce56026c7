import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ActionRefusal,
  type ActionResult,
  type BoardView,
  type CurrentRun,
  type FederationPlan,
  type FederationView,
  getTeam,
  type HostDirectory,
  type LiveEvent,
  type NeedsYouView,
  type SignalsView,
  type SignalThreadView,
  startUiServer,
  teamPageView,
  type TeamPageView,
  type TranscriptChunk,
  UI_MAX_CONNECTIONS,
  type UiServer,
  UiViews,
  workspacePaths,
  writeCurrentRun,
} from 'fed/testing';
import {
  applyLifecycleInputs,
  applyPlan,
  type Federation,
  type FederationChange,
  type FederationChanges,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  setTeamStatus,
  showSignal,
} from 'fed';
import { runFed } from '../helpers/fed-cli.js';
import { codingTeamsInReview } from '../helpers/git-federation.js';
import { signalFederation } from '../helpers/signal-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { readEvents, tinyAssets, uiSession } from '../helpers/ui-server-fixtures.js';

/** A GET through node:http: fetch will not send a Host of the caller's choosing. */
function rawGet(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

const servers: UiServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(teams: readonly string[] = ['docs', 'api'], at?: string) {
  const root = at ?? (await signalFederation(teams)).root;
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  const server = await startUiServer(fed, { assetsDir: tinyAssets() });
  servers.push(server);
  const { origin, cookie } = uiSession(server);
  /** A request as the page makes it: the session cookie, and the page's Origin on a POST. */
  const page = (path: string, init: RequestInit = {}) =>
    fetch(`${origin}${path}`, {
      redirect: 'manual',
      ...init,
      headers: { cookie, ...(init.method === 'POST' ? { origin } : {}), ...(init.headers as object) },
    });
  /** An action as the page's button sends it. */
  const act = async (request: Record<string, unknown>) => {
    const response = await page('/api/actions', {
      method: 'POST',
      body: JSON.stringify(request),
      headers: { 'content-type': 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as ActionResult | ActionRefusal };
  };
  const json = async <T>(path: string) => {
    const response = await page(path);
    expect(response.status, path).toBe(200);
    return (await response.json()) as T;
  };
  return { root, fed, server, origin, page, act, json };
}

async function event(fed: Federation, team: string, type: string, data: Record<string, unknown> = {}) {
  const entry = getTeam(await fed.backend.registry.read(), team);
  await applyLifecycleInputs(fed, entry, [{ source: 'event', event: { type, ...data } }], { durable: false });
}

/** The federation journal's dashboard records. */
async function actionsJournaled(fed: Federation) {
  return (await fed.backend.journal.read()).filter((record) => record.kind === 'action');
}

describe('fed ui: the guard', () => {
  it('refuses a request without the token (401) and says to open the printed URL', async () => {
    const { origin } = await serve();
    const response = await fetch(`${origin}/api/board`);
    expect(response.status).toBe(401);
    expect(await response.text()).toMatch(/open the URL `fed ui` printed/);
    expect((await fetch(`${origin}/`)).status).toBe(401);
  });

  it('answers a liveness probe at /healthz without the token, and says nothing else there', async () => {
    const { origin } = await serve();
    const response = await fetch(`${origin}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok\n');
    expect((await fetch(`${origin}/healthz`, { method: 'POST' })).status).toBe(401);
  });

  it('exchanges the token for an HttpOnly SameSite=Strict cookie and redirects without it', async () => {
    const { server, origin } = await serve();
    const response = await fetch(server.url, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    expect(response.headers.get('set-cookie')).toBe(
      `fed_ui_${new URL(server.url).port}=${server.token}; HttpOnly; SameSite=Strict; Path=/`,
    );
    const wrong = await fetch(`${origin}/team/docs?token=nope`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    const shell = await fetch(`${origin}/team/docs`, {
      headers: { cookie: uiSession(server).cookie },
    });
    expect(shell.status).toBe(200);
    expect(await shell.text()).toContain('<title>fed</title>');
  });

  it('names its cookie by its port: a second fed ui on the same host signs nobody out of the first', async () => {
    const [first, second] = [await serve(), await serve()];
    const cookies = [first, second].map(({ server }) => uiSession(server).cookie).join('; ');
    // The browser sends both cookies to both (cookies are not port-scoped); each server finds its own.
    for (const { origin } of [first, second])
      expect((await fetch(`${origin}/api/board`, { headers: { cookie: cookies } })).status).toBe(200);
  });

  it('answers only to its own Host (421) and Origin (403), and only GET, HEAD and POST (405)', async () => {
    const { page, server, origin } = await serve();
    const { cookie } = uiSession(server);
    expect(await rawGet(`${origin}/api/board`, { cookie, host: 'evil.example:80' })).toBe(421);
    expect(await rawGet(`${server.url}`, { host: 'rebound.example' })).toBe(421);
    expect((await page('/api/board', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await page('/api/board', { method: 'DELETE' })).status).toBe(405);
    const port = new URL(server.url).port;
    expect(await rawGet(`${origin}/api/board`, { cookie, host: `localhost:${port}` })).toBe(200);
  });

  it('takes a POST only with the cookie and the Origin of the page, or a Bearer token', async () => {
    const { origin, server } = await serve();
    const body = JSON.stringify({ action: 'pause', team: 'docs' });
    const withoutOrigin = await fetch(`${origin}/api/actions`, {
      method: 'POST',
      body,
      headers: { cookie: uiSession(server).cookie, 'content-type': 'application/json' },
    });
    expect(withoutOrigin.status).toBe(403);
    const bearer = await fetch(`${origin}/api/board`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(bearer.status).toBe(200);
    const wrongBearer = await fetch(`${origin}/api/board`, { headers: { authorization: 'Bearer nope' } });
    expect(wrongBearer.status).toBe(401);
  });

  it('sends a strict CSP and the other security headers on every response', async () => {
    const { page, origin } = await serve();
    for (const response of [await page('/'), await page('/api/board'), await fetch(`${origin}/api/board`)]) {
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect((await page('/api/board')).headers.get('cache-control')).toBe('no-store');
  });

  it('serves the page files under /assets/, nothing outside them', async () => {
    const { page } = await serve();
    const script = await page('/assets/app.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toBe('console.log("fed")');
    expect((await page('/assets/diagrams/coding.json')).status).toBe(200);
    expect((await page('/assets/..%2f..%2fetc%2fpasswd')).status).toBe(404);
    expect((await page('/assets/missing.js')).status).toBe(404);
    // A path through a file: 404, and the page's folder is not named.
    const through = await page('/assets/app.js/x');
    expect(through.status).toBe(404);
    expect(await through.text()).not.toMatch(/ENOTDIR|app\.js\/x'/);
  });

  it.each(['0.0.0.0', '::', '[::]'])('refuses a wildcard bind (%s), naming what to pass instead', async (host) => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    await expect(startUiServer(fed, { assetsDir: tinyAssets(), host })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/listens on every address.*pass one address instead/),
    });
  });

  it('refuses to start without the built page, saying how to build it', async () => {
    const federation = await signalFederation([]);
    await expect(
      startUiServer(openFederation(federation.root), { assetsDir: tempDir('fed-ui-empty-') }),
    ).rejects.toMatchObject({ code: 'UI_NOT_BUILT', message: expect.stringMatching(/npm run build/) });
  });
});

describe('fed ui: the views', () => {
  it('/api/board: every team as a card', async () => {
    const { page } = await serve();
    const board = (await (await page('/api/board')).json()) as BoardView;
    expect(board.teams.map((card) => card.id)).toEqual(['api', 'docs']);
    expect(board.teams[0]).toMatchObject({
      domain: 'api',
      status: 'active',
      healthy: expect.any(Boolean),
      inbox: { total: 0, unacknowledged: 0 },
      actions: ['pause'],
      lastRun: null,
      costUsd: null,
    });
    expect(board.totals).toMatchObject({ teams: 2 });
    expect(board.backend).toBeTypeOf('string');
  });

  it('/api/needs-you: the queue, oldest first, with its problems', async () => {
    const { page } = await serve();
    const view = (await (await page('/api/needs-you')).json()) as NeedsYouView;
    expect(view).toMatchObject({ items: [], problems: expect.any(Array) });
  });

  it("one team's inbox fed cannot list is that team's problem: the board, the queue and the federation's signals still answer", async () => {
    const { root } = await signalFederation(['docs', 'api']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    await sendSignal(fed, { from: 'meta', to: 'api', type: 'report', subject: 'Hello', body: 'b' });
    // A file where docs's inbox belongs (the same as an inbox docs's agent, run as another user, made its own).
    const inbox = workspacePaths(getTeam(await fed.backend.registry.read(), 'docs').location).inbox;
    rmSync(inbox, { recursive: true, force: true });
    writeFileSync(inbox, 'x');
    const { page, json } = await serve(['docs', 'api'], root);
    const problem = expect.stringMatching(/^cannot read the team's signal boxes: .*\[ENOTDIR\]; move that file aside$/);

    const board = await json<BoardView>('/api/board');
    expect(board.teams.map(({ id, healthy }) => ({ id, healthy }))).toEqual([
      { id: 'api', healthy: true },
      { id: 'docs', healthy: false },
    ]);
    expect(board.teams[1]!.reasons).toEqual([problem]);
    expect((await json<NeedsYouView>('/api/needs-you')).problems).toEqual([`team docs: ${board.teams[1]!.reasons[0]}`]);
    const signals = await json<SignalsView>('/api/signals');
    expect(signals.signals.map(({ to, subject }) => ({ to, subject }))).toEqual([{ to: 'api', subject: 'Hello' }]);
    // Asked for that team's own signals, the page is told what is wrong, as fed signal list says it.
    const own = await page('/api/signals?team=docs');
    expect(own.status).toBe(500);
    expect(await own.json()).toEqual({
      ok: false,
      code: 'FS_ENOTDIR',
      message: expect.stringMatching(/^\/.*\[ENOTDIR\]; move that file aside$/),
    });
  });
});

describe('fed ui: the cached views (no change feed: what they read is what the test says changed)', () => {
  it('a team whose read failed is read again on the next request, not left without a card', async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const views = new UiViews(fed);
    expect((await views.board()).teams.map((card) => card.id)).toEqual(['docs']);
    const late = await onboardTeam(fed, { domain: 'late' }, { durable: false });
    // The runs journal a directory: reading it fails, as a file being replaced or unreadable would.
    const runs = workspacePaths(late.location).runsJournal;
    mkdirSync(runs, { recursive: true });
    views.invalidate({ scope: 'registry' });
    await expect(views.board()).rejects.toThrow();
    rmSync(runs, { recursive: true });
    // No change is told for the repair: the failed read itself left the team to read again.
    expect((await views.board()).teams.map((card) => card.id)).toEqual(['docs', 'late']);
    expect((await views.needsYou()).items).toEqual([]);
  });

  it("a team's page says what its last run's network policy let through and refused", async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const entry = getTeam(await fed.backend.registry.read(), 'docs');
    const run = {
      runId: 'run-1',
      preset: 'claude',
      command: ['claude'],
      sessionId: null,
      resumedSessionId: null,
      outcome: 'completed',
      reason: null,
      exitCode: 0,
      signal: null,
      turns: 1,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
      stateBefore: 'preparing',
      stateAfter: 'complete',
      progressed: true,
      sandboxed: true,
      network: {
        policy: 'provider: api.anthropic.com',
        hosts: [
          { host: 'api.anthropic.com', port: 443, allowed: true, connections: 2, bytesUp: 10, bytesDown: 20 },
          { host: 'paste.example', port: 443, allowed: false, connections: 1, bytesUp: 0, bytesDown: 0 },
        ],
      },
      transcriptPath: join(root, 't.jsonl'),
      startedAt: '2026-11-25T10:00:00.000Z',
      endedAt: '2026-11-25T10:01:00.000Z',
    };
    const journal = workspacePaths(entry.location).runsJournal;
    mkdirSync(join(journal, '..'), { recursive: true });
    writeFileSync(journal, `${JSON.stringify(run)}\n`);
    const page = await teamPageView(fed, new UiViews(fed), 'docs');
    expect(page.card.lastRun?.network).toBe(
      'network provider: api.anthropic.com — 2 hosts, 1 refused: paste.example:443',
    );
  });

  it('a team whose network policy is "open" says so on its card, whether or not it has run; the others do not', async () => {
    const { root } = await signalFederation(['docs', 'api']);
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...config, agent: { teams: { docs: { network: 'open' } } } }));
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const views = new UiViews(fed);
    expect((await teamPageView(fed, views, 'docs')).card.networkOpen).toBe(true);
    expect((await teamPageView(fed, views, 'api')).card.networkOpen).toBe(false);
  });

  it("a team onboarded before the views heard of it has its page, not a 500; an unknown one 404's", async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const views = new UiViews(fed);
    await views.board();
    await onboardTeam(fed, { domain: 'late' }, { durable: false });
    const page = await teamPageView(fed, views, 'late');
    expect(page.card.id).toBe('late');
    await expect(teamPageView(fed, views, 'nobody')).rejects.toMatchObject({ code: 'UNKNOWN_TEAM' });
  });
});

describe('fed ui: what changes with the clock, and what a reconnect may have missed', () => {
  it('a signal that becomes overdue with no file changing is found by the one clock timer and told', async () => {
    const { root } = await signalFederation(['docs']);
    let clock = new Date();
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' }, now: () => clock });
    const directive = await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'write it' }, { durable: false });
    const server = await startUiServer(fed, { assetsDir: tinyAssets(), clockMs: 50 });
    servers.push(server);
    const { origin, cookie } = uiSession(server);
    const needsYou = async () =>
      (await (await fetch(`${origin}/api/needs-you`, { headers: { cookie } })).json()) as NeedsYouView;
    expect((await needsYou()).problems.join('\n')).not.toContain(directive.message.id);
    const stream = await fetch(`${origin}/events`, { headers: { cookie } });
    await expect.poll(() => server.clients).toBe(1);
    // Its deadline (10 minutes for a directive) passes: nothing on disk changes, only the time.
    clock = new Date(clock.getTime() + 11 * 60_000);
    const seen = await readEvents(stream, (events) =>
      events.some((e) => e.event === 'change' && (JSON.parse(e.data) as LiveEvent).change.scope === 'delivery'),
    );
    expect(seen.length).toBeGreaterThan(0);
    expect((await needsYou()).problems.join('\n')).toContain(directive.message.id);
  });

  it('an idle dashboard reads no team on its clock; a lifecycle that turns stale, or a launch whose launcher died, is read and told', async () => {
    const { root } = await signalFederation(['docs', 'api']);
    let clock = new Date();
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' }, now: () => clock });
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'write it' }, { durable: false });
    await runActors(fed, { once: true });
    const views = new UiViews(fed);
    const census = vi.spyOn(fed.backend.signals, 'census');
    expect((await views.board()).teams.map((team) => team.healthy)).toEqual([true, true]);
    census.mockClear();
    // Nothing came due and no launch runs: the tick reads no team.
    clock = new Date(clock.getTime() + 60_000);
    expect(await views.recheckClock()).toEqual([]);
    expect(census).not.toHaveBeenCalled();

    // docs works on its mission; ten minutes without a lifecycle update make it stale, with no file changing.
    clock = new Date(clock.getTime() + 10 * 60_000);
    expect(await views.recheckClock()).toEqual([{ scope: 'team', team: 'docs', what: 'lifecycle' }]);
    // api was read once too (the moment it would be stale, had it work), and not told: its card is unchanged.
    expect(census.mock.calls.flatMap(([parties]) => parties.map((party) => party.id))).toEqual(['api', 'docs']);
    census.mockClear();
    expect(await views.recheckClock()).toEqual([]);
    expect(census).not.toHaveBeenCalled();
    const docs = (await views.board()).teams.find((team) => team.id === 'docs')!;
    expect(docs.reasons.join('\n')).toMatch(/^stale: no lifecycle update for 11 min/m);

    // api's launch runs (its launcher alive): read on every tick, and told once its launcher is gone.
    const api = getTeam(await fed.backend.registry.read(), 'api');
    const run: CurrentRun = {
      runId: 'run-1',
      preset: 'custom',
      command: ['agent'],
      pid: process.pid,
      processStart: null,
      launcherPid: process.pid,
      sessionId: null,
      resumedSessionId: null,
      stateBefore: 'preparing',
      sandboxed: false,
      transcriptPath: join(root, 't.jsonl'),
      promptPath: null,
      startedAt: clock.toISOString(),
    };
    writeCurrentRun(fed, api, run);
    views.invalidate({ scope: 'team', team: 'api', what: 'lifecycle' });
    expect((await views.board()).teams.find((team) => team.id === 'api')!.healthy).toBe(true);
    expect(await views.recheckClock()).toEqual([]);
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    writeCurrentRun(fed, api, { ...run, launcherPid: gone });
    expect(await views.recheckClock()).toEqual([{ scope: 'team', team: 'api', what: 'lifecycle' }]);
    expect((await views.board()).teams.find((team) => team.id === 'api')!.reasons.join('\n')).toContain(
      `its launcher (pid ${gone}) died`,
    );
  });

  it('a change looks again at the inbox it names alone for stuck signals, and the clock at the inbox whose deadline came', async () => {
    const { root } = await signalFederation(['docs', 'api']);
    let clock = new Date();
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' }, now: () => clock });
    const views = new UiViews(fed);
    expect((await views.needsYou()).problems).toEqual([]);
    const { stuckCensus } = fed.backend.signals;
    if (!stuckCensus.supported) throw new Error('file-signal-v1 has a stuck-signal census');
    // An inbox is looked at for stuck signals alone, or by a census of its team's boxes, whose look the
    // views then take its candidates from.
    const looked = vi.spyOn(stuckCensus, 'candidates');
    const fromCensus: string[] = [];
    const census = stuckCensus.censusWithCandidates.bind(stuckCensus);
    vi.spyOn(stuckCensus, 'censusWithCandidates').mockImplementation(async (parties, search) => {
      const listing = await census(parties, search);
      return {
        ...listing,
        candidatesOf: async (party, partySearch) => {
          const candidates = await listing.candidatesOf(party, partySearch);
          if (candidates) fromCensus.push(party.id);
          return candidates;
        },
      };
    });
    const inboxes = () => [
      ...looked.mock.calls.flatMap(([parties]) => parties.map((party) => party.id)),
      ...fromCensus,
    ];
    // A report to meta, as every transition of every team sends one: meta's inbox alone is listed.
    await sendSignal(fed, { from: 'docs', to: 'meta', type: 'report', subject: 'planned' }, { durable: false });
    views.invalidate({ scope: 'meta', what: 'inbox' });
    await views.needsYou();
    expect(inboxes()).toEqual(['meta']);
    const directive = await sendSignal(fed, { to: 'api', type: 'directive', subject: 'write it' }, { durable: false });
    views.invalidate({ scope: 'team', team: 'api', what: 'inbox' });
    expect((await views.needsYou()).problems.join('\n')).not.toContain(directive.message.id);
    looked.mockClear();
    fromCensus.length = 0;
    // A minute on, nothing has come due: the clock lists nothing.
    clock = new Date(clock.getTime() + 60_000);
    expect(await views.recheckClock()).toEqual([]);
    expect(inboxes()).toEqual([]);
    // Its deadline (10 minutes for a directive) passes: api's inbox alone is looked at again, and it is told.
    clock = new Date(clock.getTime() + 10 * 60_000);
    expect(await views.recheckClock()).toContainEqual({ scope: 'delivery' });
    expect(inboxes()).toEqual(['api']);
    expect((await views.needsYou()).problems.join('\n')).toContain(directive.message.id);
  });

  it("{ scope: 'all' } (a JetStream reconnect) reads every team again, lifecycles included", async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const views = new UiViews(fed);
    const before = (await views.board()).teams[0]!.state;
    // A lifecycle change nobody told the views of (it happened while disconnected).
    await event(fed, 'docs', 'FAIL', { reason: 'sources inaccessible' });
    expect((await views.board()).teams[0]!.state).toBe(before);
    views.invalidate({ scope: 'all' });
    expect((await views.board()).teams[0]!.state).toBe('failed');
  });
});

describe('fed ui: the actions', () => {
  it('pauses and resumes a team as fed team pause|resume do, journaling each from the dashboard', async () => {
    const { fed, act, json } = await serve();
    expect(await act({ action: 'pause', team: 'docs' })).toEqual({
      status: 200,
      body: { ok: true, message: 'docs: active → paused' },
    });
    expect(getTeam(await fed.backend.registry.read(), 'docs').status).toBe('paused');
    const card = (await json<BoardView>('/api/board')).teams.find((team) => team.id === 'docs')!;
    expect(card).toMatchObject({ status: 'paused', actions: ['resume'] });
    expect((await act({ action: 'resume', team: 'docs' })).body).toEqual({
      ok: true,
      message: 'docs: paused → active',
    });
    expect(await actionsJournaled(fed)).toEqual([
      expect.objectContaining({ kind: 'action', source: 'ui', action: 'pause', team: 'docs' }),
      expect.objectContaining({ kind: 'action', source: 'ui', action: 'resume', team: 'docs' }),
    ]);
  });

  it("refuses as fed does, with fed's own code and message, and changes nothing", async () => {
    const { fed, act } = await serve();
    const cli = await setTeamStatus(fed, 'docs', { type: 'RESUME' }).catch((error: Error & { code: string }) => error);
    const refused = await act({ action: 'resume', team: 'docs' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ ok: false, code: (cli as { code: string }).code, message: (cli as Error).message });
    const unknown = await act({ action: 'pause', team: 'nobody' });
    expect(unknown).toMatchObject({ status: 404, body: { ok: false, code: 'UNKNOWN_TEAM' } });
    expect((await act({ action: 'launch', team: 'docs' })).body).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    expect((await act({ action: 'request-changes', team: 'docs' })).body).toMatchObject({ code: 'INVALID_INPUT' });
    // Each bad request says what is wrong with it, field by field.
    expect((await act({ action: 'pause', team: 'docs', force: true })).body).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('force'),
    });
    expect((await act({ action: 'answer', signalId: 'x' })).body).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('answer needs text'),
    });
    expect((await act({ action: 'answer', signalId: 'x', text: 'y', id: 'not-a-uuid' })).body).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/id: .*UUID/i),
    });
    // A field the action does not take is refused, not dropped unsaid.
    expect(await act({ action: 'pause', team: 'docs', text: 'why' })).toMatchObject({
      status: 400,
      body: { code: 'INVALID_INPUT', message: expect.stringContaining('pause takes no text') },
    });
    expect((await act({ action: 'retry', team: 'docs', signalId: randomUUID() })).body).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('retry takes no signalId: only answer does'),
    });
    expect(await actionsJournaled(fed)).toEqual([]);
    expect(getTeam(await fed.backend.registry.read(), 'docs').status ?? 'active').toBe('active');
  });

  it("refuses an answer in the action's own fields: the asker archived since is the recipient, no --to", async () => {
    const { fed, act } = await serve();
    const question = await sendSignal(fed, { from: 'docs', to: 'meta', type: 'question', subject: 'Which format?' });
    await setTeamStatus(fed, 'docs', { type: 'ARCHIVE' });
    const refused = await act({ action: 'answer', signalId: question.message.id, text: 'Markdown' });
    expect(refused).toMatchObject({ status: 400, body: { code: 'TEAM_ARCHIVED' } });
    expect((refused.body as ActionRefusal).message).toMatch(/^recipient: team "docs" is archived; /);
    expect((refused.body as ActionRefusal).message).not.toContain('--to');
  });

  it('answers a question to meta in place: a report that replies to it, and the question is answered', async () => {
    const { fed, act, json } = await serve();
    const question = await sendSignal(fed, {
      from: 'docs',
      to: 'meta',
      type: 'question',
      subject: 'Which format?',
      body: 'md or html',
    });
    // The view changes once the change feed tells the server (within its short coalescing window).
    await expect.poll(async () => (await json<NeedsYouView>('/api/needs-you')).items.length).toBe(1);
    const waiting = await json<NeedsYouView>('/api/needs-you');
    expect(waiting.items).toEqual([
      expect.objectContaining({
        kind: 'question',
        signalId: question.message.id,
        actions: ['answer'],
        from: 'docs',
        subject: 'Which format?',
        body: 'md or html',
      }),
    ]);
    // A team named beside the question must be the one that asked: nothing is sent to another.
    const misdirected = await act({ action: 'answer', team: 'api', signalId: question.message.id, text: 'Markdown' });
    expect(misdirected).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining(`was asked by team docs, not api`) },
    });
    expect((await showSignal(fed, question.message.id)).delivery.state).not.toBe('answered');
    const answer = {
      action: 'answer',
      team: 'docs',
      signalId: question.message.id,
      text: 'Markdown',
      id: randomUUID(),
    };
    const answered = await act(answer);
    expect(answered.status, JSON.stringify(answered.body)).toBe(200);
    // The page sends it again (its response was lost): the same report, not a second one.
    expect((await act(answer)).status).toBe(200);
    expect((await showSignal(fed, question.message.id)).delivery.state).toBe('answered');
    expect((await json<NeedsYouView>('/api/needs-you')).items).toEqual([]);
    const thread = await json<SignalThreadView>(`/api/signals/${question.message.id}`);
    expect(thread.signal).toMatchObject({ id: question.message.id, state: 'answered', body: 'md or html' });
    expect(thread.replies).toEqual([
      expect.objectContaining({ from: 'meta', to: 'docs', type: 'report', replyTo: question.message.id }),
    ]);
    expect(thread.history.map((h) => h.what.split(':')[0])).toContain('answered');
    expect(await actionsJournaled(fed)).toEqual([
      expect.objectContaining({ action: 'answer', team: 'docs', signalId: question.message.id, source: 'ui' }),
    ]);
    const again = await act({
      action: 'answer',
      signalId: question.message.id.replace(/^.{8}/, '00000000'),
      text: 'x',
    });
    expect(again).toMatchObject({ status: 404, body: { code: 'UNKNOWN_SIGNAL' } });
  });

  it("a signal's thread lists every reply to it, oldest first, not only the one that answered it", async () => {
    const { fed, act, json } = await serve();
    const question = await sendSignal(fed, { from: 'docs', to: 'meta', type: 'question', subject: 'What scope?' });
    const signalId = question.message.id;
    // Meta sends other signals meanwhile: they are not replies.
    await sendSignal(fed, { to: 'api', type: 'directive', subject: 'unrelated' }, { durable: false });
    expect((await act({ action: 'answer', signalId, text: 'all of it' })).status).toBe(200);
    expect((await act({ action: 'answer', signalId, text: 'second answer' })).status).toBe(200);
    await sendSignal(fed, { to: 'docs', type: 'report', subject: 'third answer', replyTo: signalId });
    const thread = await json<SignalThreadView>(`/api/signals/${signalId}`);
    expect(thread.replies.map((reply) => [reply.subject, reply.replyTo])).toEqual([
      ['Re: What scope?', signalId],
      ['Re: What scope?', signalId],
      ['third answer', signalId],
    ]);
    const bodies = await Promise.all(
      thread.replies.map(async (reply) => (await json<SignalThreadView>(`/api/signals/${reply.id}`)).signal.body),
    );
    expect(bodies).toEqual(['all of it', 'second answer', '']);
  });

  it('retries a failed team, archives one, and removes an archived one: only what each state takes is offered', async () => {
    const { fed, act, json, page } = await serve();
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'write it' }, { durable: false });
    await runActors(fed, { once: true });
    await event(fed, 'docs', 'FAIL', { reason: 'sources inaccessible' });
    await expect.poll(async () => (await json<NeedsYouView>('/api/needs-you')).items.length).toBe(1);
    const failed = await json<NeedsYouView>('/api/needs-you');
    // Remove takes only an archived team: a failed one is offered Archive, the step before it.
    expect(failed.items).toEqual([
      expect.objectContaining({ kind: 'failed', team: 'docs', actions: ['retry', 'archive'] }),
    ]);
    const card = async (id: string) => (await json<BoardView>('/api/board')).teams.find((team) => team.id === id)!;
    expect((await card('docs')).actions).toEqual(['pause', 'retry', 'archive']);
    expect(failed.problems.join('\n')).toContain('sources inaccessible');
    const retried = await act({ action: 'retry', team: 'docs' });
    expect(retried.body).toMatchObject({
      ok: true,
      message: expect.stringContaining('docs: run 2 starts from the beginning'),
    });
    expect((await json<TeamPageView>('/api/teams/docs')).card.state).not.toBe('failed');

    // A schedule added since the server started still sends to it: the archive warns, as fed team archive does.
    const scheduled = await page('/api/schedules', {
      method: 'POST',
      body: JSON.stringify({ to: 'api', subject: 'Nightly', cron: '0 3 * * *' }),
      headers: { 'content-type': 'application/json' },
    });
    expect(scheduled.status).toBe(200);
    const archived = await act({ action: 'archive', team: 'api' });
    expect(archived).toEqual({
      status: 200,
      body: {
        ok: true,
        message: expect.stringMatching(
          /^api: active → archived\nwarning: the schedules nightly to api are never sent now/,
        ),
      },
    });
    expect(getTeam(await fed.backend.registry.read(), 'api').status).toBe('archived');
    expect((await card('api')).actions).toEqual(['remove']);
    const removed = await act({ action: 'remove', team: 'api' });
    expect(removed.body).toMatchObject({ ok: true, message: expect.stringMatching(/^removed api: /) });
    expect((await json<BoardView>('/api/board')).teams.map((team) => team.id)).toEqual(['docs']);
    expect((await actionsJournaled(fed)).map((record) => record.action)).toEqual([
      'retry',
      'add-schedule',
      'archive',
      'remove',
    ]);
  });

  it('a failed team that is paused is offered Resume, not Retry, and every action offered is taken', async () => {
    const { fed, act, json } = await serve();
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'write it' }, { durable: false });
    await runActors(fed, { once: true });
    await event(fed, 'docs', 'FAIL', { reason: 'boom' });
    await setTeamStatus(fed, 'docs', { type: 'PAUSE' });
    await expect
      .poll(async () => (await json<NeedsYouView>('/api/needs-you')).items[0]?.actions)
      .toEqual(['resume', 'archive']);
    expect((await json<BoardView>('/api/board')).teams.find((team) => team.id === 'docs')!.actions).toEqual([
      'resume',
      'archive',
    ]);
    expect((await act({ action: 'resume', team: 'docs' })).status).toBe(200);
    expect((await json<NeedsYouView>('/api/needs-you')).items[0]?.actions).toEqual(['retry', 'archive']);
    expect((await act({ action: 'retry', team: 'docs' })).status).toBe(200);
  });

  it('a question whose asker was archived since it asked is not offered Answer, which would be refused', async () => {
    const { fed, act, json } = await serve();
    const question = await sendSignal(fed, { from: 'docs', to: 'meta', type: 'question', subject: 'Which format?' });
    await expect.poll(async () => (await json<NeedsYouView>('/api/needs-you')).items[0]?.actions).toEqual(['answer']);
    await setTeamStatus(fed, 'docs', { type: 'ARCHIVE' });
    await expect.poll(async () => (await json<NeedsYouView>('/api/needs-you')).items[0]?.actions).toEqual([]);
    const refused = await act({ action: 'answer', signalId: question.message.id, text: 'Markdown' });
    expect(refused).toMatchObject({ status: 400, body: { ok: false, code: 'TEAM_ARCHIVED' } });
  });

  it('offers no Retry for a team that failed before it had a mission, until it is sent one', async () => {
    const { fed, act, json } = await serve();
    await event(fed, 'docs', 'FAIL', { reason: 'boom' });
    await expect.poll(async () => (await json<NeedsYouView>('/api/needs-you')).items.length).toBe(1);
    expect((await json<NeedsYouView>('/api/needs-you')).items).toEqual([
      expect.objectContaining({
        kind: 'failed',
        actions: ['archive'],
        action: expect.stringContaining('it never had a mission: send it one (fed signal send --to docs'),
      }),
    ]);
    expect((await json<BoardView>('/api/board')).teams.find((team) => team.id === 'docs')!.actions).not.toContain(
      'retry',
    );
    expect((await act({ action: 'retry', team: 'docs' })).body).toMatchObject({ ok: false, code: 'NO_MISSION' });

    // The mission directive, never applied: now Retry starts run 2 with it.
    await sendSignal(fed, { to: 'docs', type: 'directive', subject: 'write it' }, { durable: false });
    await expect
      .poll(async () => (await json<NeedsYouView>('/api/needs-you')).items[0]?.actions)
      .toEqual(['retry', 'archive']);
    expect((await act({ action: 'retry', team: 'docs' })).body).toMatchObject({
      ok: true,
      message: expect.stringContaining('docs: run 2 starts from the beginning with the mission "write it"'),
    });
  });

  it('approves and merges a coding team in review', async () => {
    const { root, git } = await codingTeamsInReview();
    const { fed, act, json } = await serve([], root);
    const review = (await json<NeedsYouView>('/api/needs-you')).items;
    expect(review).toEqual([
      expect.objectContaining({ kind: 'review', team: 'app', actions: ['approve', 'request-changes'] }),
    ]);
    expect((await json<BoardView>('/api/board')).teams[0]!.actions).toEqual(['pause', 'approve', 'request-changes']);
    expect((await act({ action: 'merge', team: 'app' })).body).toMatchObject({ ok: false, code: 'NOT_APPROVED' });
    expect((await act({ action: 'approve', team: 'app' })).body).toEqual({
      ok: true,
      message: 'app: approved (pr-approved); merge it with: fed team merge app',
    });
    expect((await json<NeedsYouView>('/api/needs-you')).items).toEqual([
      expect.objectContaining({ kind: 'review', actions: ['merge', 'approve', 'request-changes'] }),
    ]);
    const merged = await act({ action: 'merge', team: 'app' });
    expect(merged.body).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^app: merged fed\/app into main as /),
    });
    expect(git('log', '-1', '--format=%s').trim()).toBe('Merge fed/app (fed team app) into main');
    expect((await actionsJournaled(fed)).map((record) => record.action)).toEqual(['approve', 'merge']);
  }, 60_000);

  it('an approved team whose branch moved since is offered a new review beside Merge, and both are taken', async () => {
    const { root, locations } = await codingTeamsInReview();
    const { act, json } = await serve([], root);
    expect((await act({ action: 'approve', team: 'app' })).status).toBe(200);
    expect((await json<BoardView>('/api/board')).teams[0]!.actions).toEqual([
      'pause',
      'merge',
      'approve',
      'request-changes',
    ]);
    const worktree = (...args: string[]) => spawnSync('git', args, { cwd: locations.app!, encoding: 'utf8' });
    writeFileSync(join(locations.app!, 'more.txt'), 'not reviewed\n');
    worktree('add', 'more.txt');
    worktree('commit', '-qm', 'after the approval');
    // The refusal says to review it again: the page has the buttons to do so.
    expect((await act({ action: 'merge', team: 'app' })).body).toMatchObject({ ok: false, code: 'BRANCH_MOVED' });
    expect((await act({ action: 'approve', team: 'app' })).status).toBe(200);
    expect((await act({ action: 'merge', team: 'app' })).body).toMatchObject({ ok: true });
  }, 60_000);

  it('two Merge clicks at once merge once, and the journal says one merge', async () => {
    const { root, git } = await codingTeamsInReview();
    const { fed, act } = await serve([], root);
    expect((await act({ action: 'approve', team: 'app' })).status).toBe(200);
    const both = await Promise.all([act({ action: 'merge', team: 'app' }), act({ action: 'merge', team: 'app' })]);
    expect(both.map((merge) => merge.status)).toEqual([200, 200]);
    expect(both.map((merge) => merge.body.message).sort()).toEqual([
      expect.stringMatching(/^app: already merged fed\/app into main as \w+; nothing left to do \(complete\)$/),
      expect.stringMatching(/^app: merged fed\/app into main as /),
    ]);
    expect(git('log', '--merges', '--format=%s', 'main').trim()).toBe('Merge fed/app (fed team app) into main');
    expect((await actionsJournaled(fed)).map((record) => record.action)).toEqual(['approve', 'merge']);
  }, 60_000);

  it('an approved team can be sent back with changes from the page', async () => {
    const { root } = await codingTeamsInReview();
    const { act, json } = await serve([], root);
    expect((await act({ action: 'approve', team: 'app' })).status).toBe(200);
    const sentBack = await act({ action: 'request-changes', team: 'app', text: 'rename the handler' });
    expect(sentBack.body).toMatchObject({ ok: true, message: expect.stringContaining('changes requested') });
    expect((await json<BoardView>('/api/board')).teams[0]!.state).toBe('implementing');
  }, 60_000);
});

describe('fed ui: the other views', () => {
  it("a file of the federation fed cannot use is the server's fault: 500, naming the file and how to fix it", async () => {
    const { root, page, act } = await serve();
    const registry = join(root, '.fed', 'team-registry.json');
    const good = readFileSync(registry, 'utf8');
    writeFileSync(registry, '{');
    for (const path of ['/api/board', '/api/needs-you', '/api/signals', '/api/teams/docs']) {
      // The page may still hold the registry it read before the change: it is read again once the change is heard.
      await expect.poll(async () => (await page(path)).status, { timeout: 5_000 }).toBe(500);
      expect(await (await page(path)).json()).toEqual({
        ok: false,
        code: 'FILE_CORRUPT',
        message: expect.stringMatching(/team-registry\.json is corrupt: .*restore it from a backup or fix it by hand/),
      });
    }
    expect(await act({ action: 'pause', team: 'docs' })).toMatchObject({ status: 500, body: { code: 'FILE_CORRUPT' } });
    writeFileSync(registry, good);
    await expect.poll(async () => (await page('/api/board')).status).toBe(200);
  });

  it("a deliverable the checker refuses before parsing is sent as text with the reason, never to the page's parser", async () => {
    const { fed, json } = await serve();
    const location = getTeam(await fed.backend.registry.read(), 'docs').location;
    const path = join(location, fed.config.deliverable);
    writeFileSync(path, `# Doc\n\n${'[a]'.repeat(80_000)}\n`);
    const refused = (await json<TeamPageView>('/api/teams/docs')).deliverable;
    expect(refused?.markdown).toContain('[a][a]');
    expect(refused?.notRendered).toMatch(/"\[" outside code blocks to 80000, over the limit of 2000/);
    writeFileSync(path, '# Doc\n\nA summary. Two sentences.\n');
    expect((await json<TeamPageView>('/api/teams/docs')).deliverable?.notRendered).toBeNull();
  });

  it('/api/teams/<id>, its transcript, /api/signals (paged) and /api/federation', async () => {
    const { fed, json, page } = await serve();
    for (let i = 0; i < 5; i++)
      await sendSignal(
        fed,
        { from: 'docs', to: 'api', type: 'report', subject: `report ${i}` },
        { now: () => new Date(Date.now() + i * 1000) },
      );
    const team = await json<TeamPageView>('/api/teams/api');
    expect(team).toMatchObject({
      card: { id: 'api' },
      machineId: expect.any(String),
      runs: [],
      transcript: null,
      deliverable: null,
    });
    expect(team.inbox.map((row) => row.subject)).toEqual(['report 4', 'report 3', 'report 2', 'report 1', 'report 0']);
    expect(team.inbox[0]).toMatchObject({ from: 'docs', to: 'api', type: 'report', state: 'delivered', replyTo: null });
    expect(team.journal.some((entry) => entry.origin === 'federation' && /onboarded/.test(entry.text))).toBe(true);
    expect((await page('/api/teams/nobody')).status).toBe(404);
    // A malformed %-escape is the request's fault: 400 saying so, not a 500 "URI malformed".
    for (const path of ['/api/teams/%E0%A4%A', '/api/signals/%ZZ']) {
      const malformed = await page(path);
      expect(malformed.status, path).toBe(400);
      expect(await malformed.json()).toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringContaining('malformed %-escape') as unknown,
      });
    }
    expect(await json<TranscriptChunk | null>('/api/teams/api/transcript?from=0')).toBeNull();

    const first = await json<SignalsView>('/api/signals?limit=2');
    expect(first.signals.map((row) => row.subject)).toEqual(['report 4', 'report 3']);
    const second = await json<SignalsView>(`/api/signals?limit=2&before=${encodeURIComponent(first.next!)}`);
    expect(second.signals.map((row) => row.subject)).toEqual(['report 2', 'report 1']);
    const last = await json<SignalsView>(`/api/signals?limit=2&before=${encodeURIComponent(second.next!)}`);
    expect(last).toEqual({ signals: [expect.objectContaining({ subject: 'report 0' })], next: null });
    expect((await json<SignalsView>('/api/signals?team=docs')).signals).toHaveLength(5);
    expect((await page('/api/signals?limit=0')).status).toBe(400);
    const notANumber = await page('/api/signals?limit=abc');
    expect(notANumber.status).toBe(400);
    expect(await notANumber.json()).toMatchObject({
      message: 'limit: expected a whole number from 1 to 500, got "abc"',
    });
    // A cursor that is not a page's `next` is refused, not answered with an empty page ("no signals").
    const [at, id] = first.next!.split('|');
    for (const before of ['xyz', '', `${at}`, `${at}|not-an-id`, `yesterday|${id}`, `${first.next!}|more`]) {
      const refused = await page(`/api/signals?before=${encodeURIComponent(before)}`);
      expect(refused.status, before).toBe(400);
      expect(await refused.json()).toEqual({
        ok: false,
        code: 'INVALID_INPUT',
        message: `before: expected the \`next\` of the page before, <sent time (ISO 8601)>|<signal id>, got ${JSON.stringify(before)}`,
      });
    }

    const federation = await json<FederationView>('/api/federation');
    expect(federation).toMatchObject({
      plan: null,
      planError: null,
      report: null,
      health: { teams: 2, stuckSignals: 0 },
      telemetry: { enabled: false },
      runs: { total: 0, costUsd: null, unmeasured: 0 },
    });
  });

  it('/api/federation shows the plan fed plan --apply applied', async () => {
    const { fed, json } = await serve(['docs']);
    const plan: FederationPlan = {
      codebase: fed.root,
      project: 'shop',
      basis: 'folders',
      teams: [
        {
          team: 'docs',
          areas: [{ path: 'src', name: 'src', files: 2, lines: 40 }],
          files: 2,
          lines: 40,
          mission: { subject: 'Document src/', body: 'Write the deliverable about src/ of shop.' },
        },
      ],
    };
    await applyPlan(fed, plan);
    expect((await json<FederationView>('/api/federation')).plan).toEqual({ appliedAt: expect.any(String), ...plan });

    // A plan file that cannot be read is said, with how to fix it — never shown as no plan applied.
    const file = join(fed.root, '.fed', 'plan.json');
    writeFileSync(file, 'garbage');
    const corrupt = await json<FederationView>('/api/federation');
    expect(corrupt.plan).toBeNull();
    expect(corrupt.planError).toMatch(
      /plan\.json is corrupt: not valid JSON.*; apply a plan again to rewrite it \(fed plan --apply/,
    );
    expect(corrupt.health.teams).toBe(1);
    await applyPlan(fed, plan);
    expect(await json<FederationView>('/api/federation')).toMatchObject({ plan: { project: 'shop' }, planError: null });
  });
});

describe('fed ui: /events', () => {
  it('streams a change made by another process, and resumes after Last-Event-ID', async () => {
    const { root, page, server } = await serve();
    const stream = await page('/events');
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('cache-control')).toBe('no-store');
    await expect.poll(() => server.clients).toBe(1);
    const paused = await runFed(['--root', root, 'team', 'pause', 'docs']);
    expect(paused.code, paused.stderr).toBe(0);
    const seen = await readEvents(stream, (events) =>
      events.some((e) => e.event === 'change' && (JSON.parse(e.data) as LiveEvent).change.scope === 'registry'),
    );
    const changes = seen.filter((e) => e.event === 'change');
    expect(changes[0]!.id).toMatch(new RegExp(`^[0-9a-f]+-${(JSON.parse(changes[0]!.data) as LiveEvent).seq}$`));
    await expect.poll(() => server.clients).toBe(0);

    // Reconnecting after the first change: what came after it is replayed, the first is not.
    const resumed = await page('/events', { headers: { 'last-event-id': changes[0]!.id! } });
    const replayed = await readEvents(resumed, (events) => events.length >= changes.length - 1);
    // (More may follow: the CLI's writes can still be settling.)
    expect(replayed.slice(0, changes.length - 1).map((e) => e.id)).toEqual(changes.slice(1).map((e) => e.id));
    const unknown = await page('/events', { headers: { 'last-event-id': 'nonsense' } });
    expect((await readEvents(unknown, (events) => events.length >= 1))[0]!.event).toBe('reset');

    // The board shows the change without a reload.
    expect(((await (await page('/api/board')).json()) as BoardView).teams.find((t) => t.id === 'docs')!.status).toBe(
      'paused',
    );
  }, 30_000);

  it('listens before it watches: the URL comes first, and no page is read before the watch hears changes', async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    // The real feed, whose readiness the test holds back, as a slow start would.
    let watches = 0;
    let hear: () => void = () => undefined;
    const heard = new Promise<void>((resolve) => (hear = resolve));
    const changes: FederationChanges = {
      watch(listener, onError) {
        watches++;
        const watch = fed.backend.changes.watch(listener, onError);
        return { ready: heard.then(() => watch.ready), close: () => watch.close() };
      },
    };
    const census = vi.spyOn(fed.backend.signals, 'census');
    const server = await startUiServer({ ...fed, backend: { ...fed.backend, changes } }, { assetsDir: tinyAssets() });
    servers.push(server);
    // Listening, the URL known: nothing watched or read yet.
    expect(watches).toBe(0);
    const { origin, cookie } = uiSession(server);
    expect((await fetch(`${origin}/`, { headers: { cookie } })).status).toBe(200);
    const board = fetch(`${origin}/api/board`, { headers: { cookie } });
    await expect.poll(() => watches).toBe(1);
    // A change made while the watch is not hearing yet is on the first board all the same.
    await setTeamStatus(fed, 'docs', { type: 'PAUSE' });
    expect(census).not.toHaveBeenCalled();
    hear();
    expect(((await (await board).json()) as BoardView).teams.map((team) => team.status)).toEqual(['paused']);
  });

  it('tells the pages and its caller when the change feed breaks for good', async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    // The real feed, with a way to break it as the system's watch limit or a closed connection would.
    let breakFeed: (error: Error) => void = () => undefined;
    const changes: FederationChanges = {
      watch(listener, onError) {
        breakFeed = (error) => onError?.(error);
        return fed.backend.changes.watch(listener, onError);
      },
    };
    const failures: Error[] = [];
    const server = await startUiServer(
      { ...fed, backend: { ...fed.backend, changes } },
      { assetsDir: tinyAssets(), onFeedError: (error) => void failures.push(error) },
    );
    servers.push(server);
    const { origin, cookie } = uiSession(server);
    const stream = await fetch(`${origin}/events`, { headers: { cookie } });
    await expect.poll(() => server.clients).toBe(1);
    breakFeed(new Error('ENOSPC: System limit for number of file watchers reached'));
    const seen = await readEvents(stream, (events) => events.some((e) => e.event === 'stopped'));
    expect(JSON.parse(seen.find((e) => e.event === 'stopped')!.data)).toEqual({
      message: 'ENOSPC: System limit for number of file watchers reached',
    });
    expect(failures.map((error) => error.message)).toEqual([
      'ENOSPC: System limit for number of file watchers reached',
    ]);
    // A page opened later is told at once.
    const later = await fetch(`${origin}/events`, { headers: { cookie } });
    expect((await readEvents(later, (events) => events.length >= 1))[0]!.event).toBe('stopped');
  });

  it("answers the pages when the hosts' watch cannot start, and tells its caller why", async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    // A hosts' directory (as JetStream has) whose watch fails as it starts: a record it cannot list.
    const hosts: HostDirectory = {
      location: 'the hosts bucket',
      put: async () => undefined,
      get: async () => undefined,
      list: async () => {
        throw new Error('the hosts bucket holds a record that is not valid');
      },
      watch: () => ({ ready: Promise.resolve(), close: async () => undefined }),
    };
    const failures: Error[] = [];
    const server = await startUiServer(
      { ...fed, backend: { ...fed.backend, hosts } },
      { assetsDir: tinyAssets(), onFeedError: (error) => void failures.push(error) },
    );
    servers.push(server);
    const { origin, cookie } = uiSession(server);
    const board = await fetch(`${origin}/api/board`, { headers: { cookie } });
    expect(board.status).toBe(200);
    expect(((await board.json()) as BoardView).teams.map((team) => team.id)).toEqual(['docs']);
    expect(failures.map((error) => error.message)).toEqual(['the hosts bucket holds a record that is not valid']);
  });

  it('drops a browser that stopped reading once over 1 MiB waits unsent', async () => {
    const { root } = await signalFederation(['docs']);
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    let tell: (change: FederationChange) => void = () => undefined;
    const changes: FederationChanges = {
      watch(listener, onError) {
        tell = listener;
        return fed.backend.changes.watch(listener, onError);
      },
    };
    const server = await startUiServer({ ...fed, backend: { ...fed.backend, changes } }, { assetsDir: tinyAssets() });
    servers.push(server);
    const { hostname, port } = new URL(server.url);
    // A browser that never reads: a raw socket, paused, its request sent.
    const stalled = connect(Number(port), hostname);
    stalled.pause();
    stalled.write(
      `GET /events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nCookie: fed_ui_${port}=${server.token}\r\n\r\n`,
    );
    await expect.poll(() => server.clients).toBe(1);
    // About 40 MB of events, far more than the socket buffers hold.
    const team = 'x'.repeat(2000);
    for (let i = 0; i < 20_000; i++) tell({ scope: 'team', team, what: 'inbox' });
    await expect.poll(() => server.clients).toBe(0);
    stalled.destroy();
  });

  it('a local process without the token cannot hold more connections than the cap; the page is served again once it lets go', async () => {
    const { server, page } = await serve();
    const { hostname, port } = new URL(server.url);
    const closedByServer = new Set<Socket>();
    const sockets = await Promise.all(
      Array.from(
        { length: UI_MAX_CONNECTIONS + 20 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(Number(port), hostname, () => resolve(socket));
            socket.on('close', () => {
              closedByServer.add(socket);
              resolve(socket);
            });
            socket.on('error', () => undefined);
          }),
      ),
    );
    // Those past the cap are closed as they are accepted; the rest stay open (until the head timeout).
    await expect.poll(() => closedByServer.size).toBeGreaterThanOrEqual(20);
    expect(closedByServer.size).toBeLessThan(sockets.length);
    for (const socket of sockets) socket.destroy();
    const board = async () => {
      try {
        return (await page('/api/board', { signal: AbortSignal.timeout(2_000) })).status;
      } catch {
        // Accepted while the server was still letting the others go: asked again.
        return 0;
      }
    };
    await expect.poll(board, { timeout: 20_000 }).toBe(200);
  });

  it('closing the server ends every event stream', async () => {
    const { page, server } = await serve();
    const stream = await page('/events');
    await expect.poll(() => server.clients).toBe(1);
    await server.close();
    const reader = stream.body!.getReader();
    for (;;) if ((await reader.read()).done) break;
    expect(server.clients).toBe(0);
  });
});
