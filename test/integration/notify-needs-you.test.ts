import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  applyLifecycleInputs,
  type Federation,
  initFederation,
  onboardTeam,
  openFederation,
  runActors,
  sendSignal,
  setTeamStatus,
} from 'fed';
import {
  acquireLock,
  appendRun,
  type FederationConfigInput,
  federationPaths,
  getTeam,
  launchRunSchema,
  loadHooks,
  needsYou,
  type NeedsYouItem,
  needsYouItemSchema,
  notifyNeedsYou,
  releaseLock,
} from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

const NOTIFY = fileURLToPath(new URL('../fixtures/notify-append.mjs', import.meta.url));
const CHAT_HOST = fileURLToPath(new URL('../fixtures/chat-host.mjs', import.meta.url));

interface Told {
  item: NeedsYouItem;
  env: { id: string; kind: string; team: string; root: string };
  cwd: string;
}

/** A federation whose config has `extra`; `out` is where the notify fixture writes, `failing` makes it fail. */
function federation(extra: (dirs: { out: string; failing: string }) => FederationConfigInput = () => ({})) {
  const root = tempDir();
  initFederation(root, {}, {});
  const out = join(root, 'told.jsonl');
  const failing = join(root, 'notify-fails');
  const configFile = federationPaths(root).config;
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as FederationConfigInput;
  writeFileSync(configFile, JSON.stringify({ ...config, ...extra({ out, failing }) }));
  const fed = () => openFederation(root, { env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' } });
  const told = (): Told[] =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Told)
      : [];
  return { root, out, failing, fed, told };
}

const notifyCommand = ({ out, failing }: { out: string; failing: string }): FederationConfigInput => ({
  notify: { command: `'${process.execPath}' '${NOTIFY}' '${out}' '${failing}'` },
});

async function event(fed: Federation, team: string, type: string, data: Record<string, unknown> = {}) {
  const entry = getTeam(await fed.backend.registry.read(), team);
  await applyLifecycleInputs(fed, entry, [{ source: 'event', event: { type, ...data } }], { durable: false });
}

/**
 * A failed team, a paused one (its last run paused it on a rate limit), one paused by hand, a coding team in
 * review, a question and an escalation to meta.
 */
async function everyKind(fed: Federation): Promise<{ resumeAt: string; question: string; alert: string }> {
  await onboardTeam(fed, { domain: 'broken' });
  await onboardTeam(fed, { domain: 'held' });
  await onboardTeam(fed, { domain: 'app', archetypeId: 'coding' });
  await onboardTeam(fed, { domain: 'by-hand' });
  for (const domain of ['broken', 'held', 'app', 'by-hand'])
    await sendSignal(fed, { to: domain, type: 'directive', subject: 'work' }, { durable: false });
  await runActors(fed, { once: true });
  await event(fed, 'broken', 'FAIL', { reason: 'sources inaccessible' });
  await event(fed, 'app', 'PLAN_READY', { tasks: ['x'] });
  await event(fed, 'app', 'CHANGES_COMMITTED', { commit: 'abc' });
  await event(fed, 'app', 'TESTS_COMPLETE', { passed: 1, failed: 0 });
  await event(fed, 'app', 'REVIEW_REQUESTED', { pullRequest: 'fed/app' });
  await setTeamStatus(fed, 'held', { type: 'PAUSE' });
  // Paused by a person, who knows: not told.
  await setTeamStatus(fed, 'by-hand', { type: 'PAUSE' });
  const resumeAt = new Date(Date.now() + 3_600_000).toISOString();
  const held = await fed.team('held');
  const now = new Date(Date.now() + 1000).toISOString();
  appendRun(
    fed,
    held,
    launchRunSchema.parse({
      runId: 'run-1',
      preset: 'claude',
      command: ['claude'],
      sessionId: 's-1',
      resumedSessionId: null,
      outcome: 'rate-limited',
      reason: 'rate-limited: usage limit reached',
      exitCode: 1,
      signal: null,
      turns: 3,
      inputTokens: null,
      outputTokens: null,
      costUsd: null,
      resumeAt,
      stateBefore: 'preparing',
      stateAfter: 'paused',
      progressed: false,
      sandboxed: false,
      transcriptPath: join(held.location, 'transcript.jsonl'),
      startedAt: now,
      endedAt: now,
    }),
  );
  const question = await sendSignal(
    fed,
    { from: 'broken', to: 'meta', type: 'question', subject: 'Where are the sources?' },
    { durable: false },
  );
  const alert = await sendSignal(
    fed,
    { from: 'app', to: 'meta', type: 'alert', subject: 'The build server is down' },
    { durable: false },
  );
  return { resumeAt, question: question.message.id, alert: alert.message.id };
}

const allItems = (fed: Federation) => async () => (await needsYou(fed)).items;

describe('someone is told: the needs-you items, each once', () => {
  it('tells the notify command about each kind once, with the item on stdin and FED_* set; a second pass tells nothing', async () => {
    const { root, fed, told } = federation(notifyCommand);
    const { resumeAt, question, alert } = await everyKind(fed());
    const first = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(first.warnings).toEqual([]);
    const byKind = Object.fromEntries(told().map((t) => [t.item.kind, t]));
    expect(Object.keys(byKind).sort()).toEqual(['escalation', 'failed', 'paused', 'question', 'review']);
    expect(told()).toHaveLength(5);
    for (const { item, env, cwd } of told()) {
      expect(needsYouItemSchema.parse(item)).toEqual(item);
      expect(env).toEqual({ id: item.id, kind: item.kind, team: item.team ?? '', root });
      expect(cwd).toBe(root);
    }
    expect(byKind.failed!.item).toMatchObject({
      team: 'broken',
      summary: 'broken failed: sources inaccessible',
      action: expect.stringContaining('fed team retry broken'),
    });
    expect(byKind.failed!.item.id).toMatch(/^failed:broken:\d{4}-/);
    expect(byKind.paused!.item).toMatchObject({
      team: 'held',
      summary: `held is paused (rate-limited: usage limit reached); resumes at ${resumeAt}`,
      resumeAt,
    });
    expect(byKind.review!.item).toMatchObject({
      team: 'app',
      summary: 'app waits for you in pr-review',
      action: expect.stringContaining('fed team review app'),
    });
    expect(byKind.question!.item).toMatchObject({
      id: `question:${question}`,
      team: 'broken',
      signalId: question,
      summary: 'broken asks: Where are the sources?',
    });
    expect(byKind.escalation!.item).toMatchObject({ id: `escalation:${alert}`, team: 'app', signalId: alert });

    const second = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(second).toEqual({ told: [], warnings: [] });
    expect(told()).toHaveLength(5);
  });

  it('a question answered, or an alert acknowledged, before anyone was told is not told', async () => {
    const { fed, told } = federation(notifyCommand);
    await onboardTeam(fed(), { domain: 'docs' });
    const question = await sendSignal(fed(), { from: 'docs', to: 'meta', type: 'question', subject: 'Which API?' });
    await sendSignal(fed(), { to: 'docs', type: 'report', subject: 'The public one', replyTo: question.message.id });
    await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(told()).toEqual([]);
  });

  it('a failing notify command is a warning; the item is told on a later pass, then never again', async () => {
    const { fed, told, failing } = federation(notifyCommand);
    await onboardTeam(fed(), { domain: 'docs' });
    await event(fed(), 'docs', 'FAIL', { reason: 'no sources' });
    writeFileSync(failing, '');
    const failed = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(failed.told).toEqual([]);
    expect(failed.warnings).toEqual([
      expect.stringMatching(
        /^failed:docs:\S+ was not told through command \(tried again later\): notify\.command exited with code 3: notify: the pager service is down$/,
      ),
    ]);
    expect(told()).toEqual([]);
    rmSync(failing);
    const retried = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(retried.warnings).toEqual([]);
    expect(told().map((t) => t.item.kind)).toEqual(['failed']);
    await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(told()).toHaveLength(1);
  });

  it('an item another live process is telling is left to it; one whose teller died is told by the next pass', async () => {
    const { root, fed, told } = federation(notifyCommand);
    await onboardTeam(fed(), { domain: 'docs' });
    await event(fed(), 'docs', 'FAIL', { reason: 'no sources', at: '2026-01-01T10:00:00.000Z' });
    const dir = federationPaths(root).notify;
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, 'failed_docs_2026-01-01T10_00_00.000Z.lock');
    const held = await acquireLock(lock);
    const skipped = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(skipped).toEqual({ told: [], warnings: [] });
    expect(told()).toEqual([]);
    releaseLock(held);
    // A teller killed after its claim: its process is gone, so its lock is taken over.
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(
      lock,
      JSON.stringify({ pid: gone, host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() }),
    );
    const retried = await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    expect(retried.warnings).toEqual([]);
    expect(told().map((t) => t.item.id)).toEqual(['failed:docs:2026-01-01T10:00:00.000Z']);
    expect(existsSync(lock)).toBe(false);
  });

  it('a team that fails again after a retry is a new item, told again', async () => {
    const { fed, told } = federation(notifyCommand);
    await onboardTeam(fed(), { domain: 'docs' });
    await event(fed(), 'docs', 'FAIL', { reason: 'first', at: '2026-01-01T10:00:00.000Z' });
    await notifyNeedsYou(fed(), allItems(fed()), { durable: false });
    const items = (await needsYou(fed())).items;
    expect(items.map((i) => i.id)).toEqual(['failed:docs:2026-01-01T10:00:00.000Z']);
    // The same state entered at another time is another occurrence.
    const again = { ...items[0]!, id: 'failed:docs:2026-01-02T10:00:00.000Z', since: '2026-01-02T10:00:00.000Z' };
    await notifyNeedsYou(fed(), async () => [items[0]!, again], { durable: false });
    expect(told().map((t) => t.item.id)).toEqual([items[0]!.id, again.id]);
  });

  it('tells the onNeedsYou hook and the chat channel too, each once', async () => {
    const store = join(tempDir(), 'channel.jsonl');
    const hookOut = join(tempDir(), 'hook.jsonl');
    const { root, fed } = federation(() => ({
      federationName: 'acme',
      importHook: 'hooks.mjs',
      chatConfig: {
        teamId: '5f2b1c3e-0000-4000-8000-000000000000',
        channelId: '19:abc123@thread.tacv2',
        command: `'${process.execPath}' '${CHAT_HOST}'`,
      },
    }));
    writeFileSync(
      join(root, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';\nexport const onNeedsYou = (item) => appendFileSync(${JSON.stringify(hookOut)}, JSON.stringify(item) + '\\n');\n`,
    );
    process.env.FAKE_CHAT_STORE = store;
    try {
      await onboardTeam(fed(), { domain: 'docs' });
      await event(fed(), 'docs', 'FAIL', { reason: 'x'.repeat(500) });
      const hooks = await loadHooks(root, fed().config, 'test');
      // Without the hooks the command loaded, the hook is no channel: the others tell, the hook is told later.
      expect((await notifyNeedsYou(fed(), allItems(fed()), { durable: false })).warnings).toEqual([]);
      expect(existsSync(hookOut)).toBe(false);
      for (let pass = 0; pass < 2; pass++) {
        const result = await notifyNeedsYou(fed(), allItems(fed()), { hooks, durable: false });
        expect(result.warnings).toEqual([]);
      }
    } finally {
      delete process.env.FAKE_CHAT_STORE;
    }
    const hooked = readFileSync(hookOut, 'utf8').split('\n').filter(Boolean);
    expect(hooked.map((line) => (JSON.parse(line) as NeedsYouItem).kind)).toEqual(['failed']);
    const posted = readFileSync(store, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { text: string }).text);
    expect(posted).toHaveLength(1);
    // One line, cut short: the whole reason is one command away.
    expect(posted[0]).toMatch(/^\[acme\] needs you — docs failed: x+…\nsee why: fed team show docs; /);
    expect(posted[0]!.split('\n')[0]!.length).toBeLessThan(230);
  });

  it('with nothing configured, nothing is computed or written', async () => {
    const { root, fed } = federation();
    await onboardTeam(fed(), { domain: 'docs' });
    await event(fed(), 'docs', 'FAIL', { reason: 'no sources' });
    let computed = false;
    const result = await notifyNeedsYou(
      fed(),
      async () => {
        computed = true;
        return [];
      },
      {},
    );
    expect(result).toEqual({ told: [], warnings: [] });
    expect(computed).toBe(false);
    expect(existsSync(federationPaths(root).notify)).toBe(false);
  });
});
