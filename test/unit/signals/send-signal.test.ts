import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { validate as isUuid, version as uuidVersion } from 'uuid';
import { describe, expect, it } from 'vitest';
import { FedError, listSignals, onboardTeam, openFederation, updateRegistry } from 'fed';
import { federationPaths, readRegistry, writeRegistryStatus } from 'fed/testing';
import { MAX_SIGNAL_BYTES, signalMessageSchema } from '../../../src/core/schema/signal.js';
import { sendSignal } from '../../../src/engine/messaging/send-signal.js';
import { entries, signalFederation, type SignalFederation } from '../../helpers/signal-federation.js';
import { tempDir } from '../../helpers/temp-dir.js';

const fast = { durable: false };

/** Every file under `dir` with its content, to prove a refused send changed nothing at all. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(dir);
  return files;
}

/** `path` (a folder) replaced by a file. */
function replaceWithFile(path: string): void {
  rmSync(path, { recursive: true });
  writeFileSync(path, 'not a folder');
}

/** `path` (a folder) replaced by a symbolic link to `target`. */
function replaceWithLink(path: string, target: string): void {
  rmSync(path, { recursive: true });
  symlinkSync(target, path);
}

function refusal(error: unknown): FedError {
  expect(error).toBeInstanceOf(FedError);
  expect((error as FedError).refusal).toBe(true);
  return error as FedError;
}

describe('sendSignal', () => {
  it("writes a spec SignalMessage to the recipient's inbox and an identical copy to the sender's outbox", async () => {
    const fed = await signalFederation(['docs']);
    const before = Date.now();
    const result = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'directive', subject: 'Write the guide', body: 'Details.' },
      fast,
    );

    const inboxText = readFileSync(result.inboxPath, 'utf8');
    const message = JSON.parse(inboxText) as Record<string, unknown>;
    expect(Object.keys(message)).toEqual(['id', 'timestamp', 'from', 'to', 'type', 'subject', 'body', 'protocol']);
    expect(signalMessageSchema.parse(message)).toEqual(result.message);
    expect(message).toMatchObject({
      from: 'meta',
      to: 'docs',
      type: 'directive',
      subject: 'Write the guide',
      body: 'Details.',
      protocol: 'file-signal-v1',
    });
    expect(isUuid(result.message.id) && uuidVersion(result.message.id)).toBe(4);
    expect(Date.parse(result.message.timestamp)).toBeGreaterThanOrEqual(before - 1);

    expect(result.inboxPath).toBe(join(fed.team('docs').inbox, result.file));
    expect(result.outboxPath).toBe(join(fed.meta.outbox, result.file));
    expect(readFileSync(result.outboxPath, 'utf8')).toBe(inboxText);
    expect(result.file).toMatch(/^\d{4}-\d{2}-\d{2}T\d{6}Z-directive-write-the-guide\.json$/);
    expect(result.delivered).toBe(true);
    expect(entries(fed.team('docs').inbox)).toEqual([result.file]);
    expect(entries(fed.meta.outbox)).toEqual([result.file]);
  });

  it('sends from a team to meta, naming teams by id; the body defaults to empty', async () => {
    const fed = await signalFederation(['docs']);
    const result = await sendSignal(
      openFederation(fed.root),
      { from: 'docs', to: 'meta', type: 'report', subject: 'Done' },
      fast,
    );
    expect(result.message).toMatchObject({ from: 'docs', to: 'meta', body: '' });
    expect(entries(fed.meta.inbox)).toEqual([result.file]);
    expect(entries(fed.team('docs').outbox)).toEqual([result.file]);
  });

  it('accepts a team by its domain and writes its id into the signal', async () => {
    const fed = await signalFederation([]);
    await onboardTeam(openFederation(fed.root), { domain: 'writers', domainId: 'docs-team' }, fast);
    const result = await sendSignal(
      openFederation(fed.root),
      { to: 'writers', type: 'question', subject: 'Scope?' },
      fast,
    );
    expect(result.message.to).toBe('docs-team');
    expect(result.inboxPath.startsWith(fed.team('docs-team').inbox)).toBe(true);
  });

  it.each([
    [
      'an unknown recipient',
      { to: 'ghost' },
      'UNKNOWN_TEAM',
      /recipient \(--to\): unknown team "ghost".*registered teams: docs, api/,
    ],
    ['an unknown sender', { from: 'ghost' }, 'UNKNOWN_TEAM', /sender \(--from\): unknown team "ghost"/],
    ['a path as recipient', { to: '../../etc' }, 'UNKNOWN_TEAM', /unknown team "\.\.\/\.\.\/etc"/],
    [
      'an unknown type',
      { type: 'memo' },
      'INVALID_INPUT',
      /type: expected one of "directive", "question", "report", "alert", got "memo"/,
    ],
    [
      'an empty subject, said once',
      { subject: '' },
      'INVALID_INPUT',
      /^cannot send the signal: subject: expected a subject with at least one non-space character, got an empty string$/,
    ],
    [
      'a blank subject',
      { subject: '   ' },
      'INVALID_INPUT',
      /subject: expected a subject with at least one non-space character/,
    ],
    ['an id that is not a UUID', { id: 'retry-1' }, 'INVALID_INPUT', /id: expected a UUID such as .*, got "retry-1"/],
    [
      "hex in a UUID's shape without its version and variant",
      { id: '22222222-2222-2222-2222-222222222222' },
      'INVALID_INPUT',
      /id: expected a UUID such as [0-9a-f-]+ \(its 13th hex digit a version 1–8, its 17th one of 8, 9, a, b\), got "2{8}-/,
    ],
    [
      'a body over the size limit',
      { body: 'x'.repeat(MAX_SIGNAL_BYTES) },
      'INVALID_INPUT',
      /over the 1048576-byte limit/,
    ],
  ])('refuses %s with a clear error and writes nothing', async (_what, change, code, message) => {
    const fed = await signalFederation(['docs', 'api']);
    const before = snapshot(fed.root);
    const error = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'x', ...change },
      fast,
    ).catch((e: unknown) => e);
    expect(refusal(error).code).toBe(code);
    expect((error as Error).message).toMatch(message);
    expect(snapshot(fed.root)).toEqual(before);
  });

  it('refuses archived recipients and senders and writes nothing', async () => {
    const fed = await signalFederation(['docs', 'api']);
    await writeRegistryStatus(openFederation(fed.root), 'api', { type: 'ARCHIVE' }, fast);
    const before = snapshot(fed.root);
    for (const request of [{ to: 'api' }, { to: 'docs', from: 'api' }]) {
      const error = await sendSignal(openFederation(fed.root), { type: 'alert', subject: 'x', ...request }, fast).catch(
        (e: unknown) => e,
      );
      expect(refusal(error).code).toBe('TEAM_ARCHIVED');
      expect((error as Error).message).toMatch(/team "api" is archived/);
    }
    expect(snapshot(fed.root)).toEqual(before);
  });

  it('refuses a sender other than the calling team, and writes nothing; meta (no caller) sends as any party', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const before = snapshot(fed.root);
    for (const from of ['meta', 'api']) {
      const error = await sendSignal(
        openFederation(fed.root),
        { to: 'docs', type: 'directive', subject: 'x', from },
        { ...fast, caller: 'docs' },
      ).catch((e: unknown) => e);
      expect(refusal(error).code).toBe('SENDER_NOT_CALLER');
      expect((error as Error).message).toMatch(/runs as team "docs" .*cannot act as "(meta|api)"/);
    }
    expect(snapshot(fed.root)).toEqual(before);
    // A team sends as itself (by default too); meta sends on behalf of a team.
    await sendSignal(
      openFederation(fed.root),
      { to: 'meta', type: 'report', subject: 'a', from: 'docs' },
      { ...fast, caller: 'docs' },
    );
    const implied = await sendSignal(
      openFederation(fed.root),
      { to: 'meta', type: 'report', subject: 'c' },
      { ...fast, caller: 'docs' },
    );
    expect(implied.message.from).toBe('docs');
    await sendSignal(openFederation(fed.root), { to: 'meta', type: 'report', subject: 'b', from: 'api' }, fast);
    expect(entries(fed.meta.inbox)).toHaveLength(3);
  });

  it('sends to and from a paused team (it reads its inbox when resumed)', async () => {
    const fed = await signalFederation(['docs']);
    await writeRegistryStatus(openFederation(fed.root), 'docs', { type: 'PAUSE' }, fast);
    await expect(
      sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'Later' }, fast),
    ).resolves.toMatchObject({ delivered: true });
    await expect(
      sendSignal(openFederation(fed.root), { from: 'docs', to: 'meta', type: 'report', subject: 'Paused' }, fast),
    ).resolves.toMatchObject({ delivered: true });
  });

  it('never overwrites: signals with the same second, type and subject all arrive under suffixed names', async () => {
    const fed = await signalFederation(['docs']);
    const now = () => new Date('2026-01-31T12:00:00.000Z');
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(
        await sendSignal(
          openFederation(fed.root),
          { to: 'docs', type: 'report', subject: 'Status', body: `#${i}` },
          { ...fast, now },
        ),
      );
    expect(results.map((r) => r.file)).toEqual([
      '2026-01-31T120000Z-report-status.json',
      '2026-01-31T120000Z-report-status-2.json',
      '2026-01-31T120000Z-report-status-3.json',
      '2026-01-31T120000Z-report-status-4.json',
      '2026-01-31T120000Z-report-status-5.json',
    ]);
    const bodies = entries(fed.team('docs').inbox).map(
      (f) => (JSON.parse(readFileSync(join(fed.team('docs').inbox, f), 'utf8')) as { body: string }).body,
    );
    expect(bodies.sort()).toEqual(['#0', '#1', '#2', '#3', '#4']);
    expect(entries(fed.meta.outbox)).toHaveLength(5);
  });

  it('stamps sends made at one clock reading a millisecond apart, so the inbox applies them in the order sent', async () => {
    const fed = await signalFederation(['docs']);
    const now = () => new Date('2026-02-01T12:00:00.000Z');
    // Subjects whose file names sort against the order sent: the name alone would apply them backwards.
    const sent = await Promise.all(
      ['zulu', 'yankee', 'xray'].map((subject) =>
        sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject }, { ...fast, now }),
      ),
    );
    expect(sent.map((s) => s.message.timestamp)).toEqual([
      '2026-02-01T12:00:00.000Z',
      '2026-02-01T12:00:00.001Z',
      '2026-02-01T12:00:00.002Z',
    ]);
    const listed = await listSignals(openFederation(fed.root), { team: 'docs' });
    expect(listed.signals.map((s) => s.message.subject)).toEqual(['zulu', 'yankee', 'xray']);
    // A clock set back is taken as it reads.
    const earlier = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'directive', subject: 'earlier' },
      { ...fast, now: () => new Date('2026-01-31T11:00:00.000Z') },
    );
    expect(earlier.message.timestamp).toBe('2026-01-31T11:00:00.000Z');
  });

  it('delivers a retried send with the same --id once, keeping the original message', async () => {
    const fed = await signalFederation(['docs']);
    const id = '0b7d1c9e-3f4a-4e2b-8c5d-6a7b8c9d0e1f';
    const request = { to: 'docs', type: 'directive', subject: 'Do it', body: 'once', id };
    const first = await sendSignal(openFederation(fed.root), request, {
      ...fast,
      now: () => new Date('2026-01-31T12:00:00Z'),
    });
    const retry = await sendSignal(
      openFederation(fed.root),
      { ...request, id: id.toUpperCase() },
      { ...fast, now: () => new Date('2026-01-31T12:05:00Z') },
    );
    expect(first.delivered).toBe(true);
    expect(retry.delivered).toBe(false);
    expect(retry.message).toEqual(first.message);
    expect(retry.inboxPath).toBe(first.inboxPath);
    expect(entries(fed.team('docs').inbox)).toEqual([first.file]);
    expect(entries(fed.meta.outbox)).toEqual([first.file]);
  });

  it('completes the missing outbox copy when a send died between inbox and outbox', async () => {
    const fed = await signalFederation(['docs']);
    const id = '5c1e7a52-1b1e-4c51-9a7d-0f3e2d1c0b9a';
    const first = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'Half', id },
      { ...fast, now: () => new Date('2026-01-31T12:00:00Z') },
    );
    rmSync(first.outboxPath); // what a crash after the inbox publish leaves behind
    const retry = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'Half', id }, fast);
    expect(retry.delivered).toBe(false);
    expect(entries(fed.meta.outbox)).toEqual([first.file]);
    expect(readFileSync(retry.outboxPath, 'utf8')).toBe(readFileSync(first.inboxPath, 'utf8'));
    expect(entries(fed.team('docs').inbox)).toEqual([first.file]);
  });

  it('refuses an id reused for a different signal, and sends signals with other ids normally', async () => {
    const fed = await signalFederation(['docs']);
    const id = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'Same', body: 'one', id }, fast);
    const error = await sendSignal(
      openFederation(fed.root),
      { to: 'docs', type: 'report', subject: 'Same', body: 'two', id },
      fast,
    ).catch((e: unknown) => e);
    expect(refusal(error).code).toBe('SIGNAL_ID_REUSED');
    expect((error as Error).message).toMatch(/different body/);
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'Same', body: 'two' }, fast);
    expect(entries(fed.team('docs').inbox)).toHaveLength(2);
  });

  it.each([
    ['path traversal', '../../../../tmp/evil', 'payload'],
    ['absolute path', '/etc/passwd', '/etc/shadow'],
    ['control characters', 'line\nbreak\u0000nul\u001b[2Jclear\r', 'body\u0000with\u0007bell\u001b[31m'],
    ['10 000 characters', 'subject '.repeat(1_250), 'b'.repeat(10_000)],
    ['emoji only', '🚀🔥', '👩‍👩‍👧‍👦 family'],
    ['emoji and accents', 'Déploiement 🚀 prêt', '✓'],
    ['empty body', 'Nothing to add', ''],
    ['json-looking text', '{"to":"meta"}', '"},{"from":"evil"'],
  ])('keeps a hostile subject and body exactly, and the file inside the inbox: %s', async (_what, subject, body) => {
    const fed = await signalFederation(['docs']);
    const result = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'alert', subject, body }, fast);
    const inbox = fed.team('docs').inbox;
    expect(entries(inbox)).toEqual([result.file]);
    expect(result.inboxPath).toBe(join(inbox, result.file));
    expect(Buffer.byteLength(result.file)).toBeLessThan(120);
    const stored = signalMessageSchema.parse(JSON.parse(readFileSync(result.inboxPath, 'utf8')));
    expect(stored.subject).toBe(subject);
    expect(stored.body).toBe(body);
    // Nothing was created anywhere else in the federation but the two copies.
    expect(entries(join(fed.root, '..')).filter((n) => n === 'evil')).toEqual([]);
  });

  it('refreshes the sender lastActive at most once a minute, never for meta, and never by rewriting the registry', async () => {
    const fed = await signalFederation(['docs']);
    const t0 = Date.parse(readRegistry(fed.root).teams[0]!.lastActive!);
    const at = (ms: number) => ({ ...fast, now: () => new Date(t0 + ms) });
    const version = () => readRegistry(fed.root).lockVersion;
    const v0 = version();
    // The refreshes, as lines beside the registry (src/adapters/file/team-activity-file.ts).
    const refreshes = () =>
      existsSync(federationPaths(fed.root).teamActivity)
        ? readFileSync(federationPaths(fed.root).teamActivity, 'utf8').trim().split('\n').length
        : 0;

    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'from meta' }, at(120_000));
    expect(refreshes()).toBe(0);
    await sendSignal(openFederation(fed.root), { from: 'docs', to: 'meta', type: 'report', subject: 'a' }, at(30_000));
    expect(refreshes()).toBe(0);
    await sendSignal(openFederation(fed.root), { from: 'docs', to: 'meta', type: 'report', subject: 'b' }, at(90_000));
    expect(refreshes()).toBe(1);
    expect(readRegistry(fed.root).teams[0]!.lastActive).toBe(new Date(t0 + 90_000).toISOString());
    await sendSignal(openFederation(fed.root), { from: 'docs', to: 'meta', type: 'report', subject: 'c' }, at(120_000));
    expect(refreshes()).toBe(1);
    expect(version()).toBe(v0);
  });

  it('refuses a team whose registry location lies outside the federation root, or no longer exists', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const elsewhere = tempDir('fed-elsewhere-');
    mkdirSync(join(elsewhere, '.fed', 'signals', 'inbox'), { recursive: true });
    await updateRegistry(
      openFederation(fed.root),
      (registry) => {
        registry.teams.find((t) => t.domainId === 'docs')!.location = elsewhere;
        return registry;
      },
      fast,
    );
    // A location can only be the team's own workspace (issue 26): one that no longer exists.
    rmSync(join(fed.root, '.fed', 'teams', 'api'), { recursive: true });
    const outside = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'alert', subject: 'x' }, fast).catch(
      (e: unknown) => e,
    );
    expect(refusal(outside).code).toBe('WORKSPACE_OUTSIDE_ROOT');
    expect(entries(join(elsewhere, '.fed', 'signals', 'inbox'))).toEqual([]);
    const missing = await sendSignal(openFederation(fed.root), { to: 'api', type: 'alert', subject: 'x' }, fast).catch(
      (e: unknown) => e,
    );
    expect(refusal(missing).code).toBe('WORKSPACE_MISSING');
    expect(entries(fed.meta.outbox)).toEqual([]);
  });

  it.each([
    [
      'the recipient has no workspace',
      (fed: SignalFederation) => rmSync(fed.team('docs').workspace, { recursive: true }),
    ],
    ["the recipient's inbox is a file", (fed: SignalFederation) => replaceWithFile(fed.team('docs').inbox)],
    [
      "the recipient's inbox is a link",
      (fed: SignalFederation) => replaceWithLink(fed.team('docs').inbox, tempDir('fed-elsewhere-')),
    ],
    ["the sender's outbox is a file", (fed: SignalFederation) => replaceWithFile(fed.meta.outbox)],
  ])(
    'refuses a send when %s, before its id is claimed: no delivery fact is left, with or without --id',
    async (_what, breakIt) => {
      const fed = await signalFederation(['docs']);
      breakIt(fed);
      const delivery = join(fed.root, '.fed', 'delivery');
      const before = snapshot(fed.root);
      for (const id of [undefined, '0b6c2f4e-8a1d-4c3b-9e5f-7d2a1b3c4e5f']) {
        const error = await sendSignal(
          openFederation(fed.root),
          { to: 'docs', type: 'report', subject: 'x', id },
          fast,
        ).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(Error);
        expect(entries(delivery)).toEqual([]);
        expect(snapshot(fed.root)).toEqual(before);
      }
    },
  );

  it('creates missing signal boxes of an existing workspace', async () => {
    const fed = await signalFederation(['docs']);
    rmSync(join(fed.team('docs').workspace, '.fed', 'signals'), { recursive: true });
    const result = await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'Rebuilt' });
    expect(entries(fed.team('docs').inbox)).toEqual([result.file]);
  });
});
