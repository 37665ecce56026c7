import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckedRootFolders, FileDeliveryFactStore, resolveParty, writeRegistryStatus } from 'fed/testing';
import { acknowledgeSignal, FedError, listSignals, openFederation, sendSignal, showSignal } from 'fed';
import { entries, signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };
const T0 = new Date('2026-03-01T09:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
const send = (root: string, request: Parameters<typeof sendSignal>[1], minutes = 0) =>
  sendSignal(openFederation(root), request, { ...fast, now: () => at(minutes) });
const stateOf = async (root: string, id: string, minutes: number) =>
  (await showSignal(openFederation(root), id, { now: at(minutes) })).delivery.state;

async function refusal(promise: Promise<unknown>): Promise<FedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FedError);
  expect((error as FedError).refusal).toBe(true);
  return error as FedError;
}

describe('delivery state', () => {
  it('only the party a signal was sent to answers it: a reply from anyone else is refused and nothing is sent', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const question = await send(fed.root, { to: 'docs', type: 'question', subject: 'Which services are in scope?' });
    const before = entries(fed.meta.inbox);
    const refused = await refusal(
      send(fed.root, { from: 'api', to: 'meta', type: 'report', subject: 'Scope', replyTo: question.message.id }, 5),
    );
    expect(refused.code).toBe('REPLY_NOT_FROM_RECIPIENT');
    expect(refused.message).toBe(
      `--reply-to: signal ${question.message.id} was sent to "docs", so only "docs" can answer it, not "api"; send this one without --reply-to, or from "docs"`,
    );
    expect(entries(fed.meta.inbox)).toEqual(before);
    expect(await stateOf(fed.root, question.message.id, 10)).toBe('delivered');
  });

  it('a question answered by a reply is answered, with the reply in its history; the signal files keep only the spec fields', async () => {
    const fed = await signalFederation(['docs']);
    const question = await send(fed.root, { to: 'docs', type: 'question', subject: 'Which services are in scope?' });
    expect(await stateOf(fed.root, question.message.id, 1)).toBe('delivered');

    const reply = await send(
      fed.root,
      { from: 'docs', to: 'meta', type: 'report', subject: 'Scope', body: 'api and web', replyTo: question.message.id },
      5,
    );
    const shown = await showSignal(openFederation(fed.root), question.message.id, { now: at(60) });
    expect(shown.delivery.state).toBe('answered');
    expect(shown.history).toEqual([
      { at: at(0).toISOString(), event: 'sent', detail: 'from meta to docs' },
      { at: at(5).toISOString(), event: 'answered', detail: `by signal ${reply.message.id} from docs` },
    ]);
    expect((await showSignal(openFederation(fed.root), reply.message.id, { now: at(60) })).replyTo).toBe(
      question.message.id,
    );
    // Nothing was added to either signal file: the facts live beside them.
    for (const path of [question.inboxPath, question.outboxPath, reply.inboxPath, reply.outboxPath]) {
      expect(Object.keys(JSON.parse(readFileSync(path, 'utf8')) as object)).toEqual([
        'id',
        'timestamp',
        'from',
        'to',
        'type',
        'subject',
        'body',
        'protocol',
      ]);
    }
    expect(
      (await listSignals(openFederation(fed.root), { team: 'docs', state: 'answered' }, { now: at(60) })).signals.map(
        (s) => s.message.id,
      ),
    ).toEqual([question.message.id]);
  });

  it('an unanswered question expires at its deadline, even when acknowledged; an acknowledged directive does not', async () => {
    const fed = await signalFederation(['docs']);
    const question = await send(fed.root, { to: 'docs', type: 'question', subject: 'When?' });
    const directive = await send(fed.root, { to: 'docs', type: 'directive', subject: 'Do it' });
    const late = await send(fed.root, { to: 'docs', type: 'directive', subject: 'Do that too' }, 1);
    await acknowledgeSignal(openFederation(fed.root), 'docs', question.message.id, { ...fast, now: () => at(1) });
    await acknowledgeSignal(openFederation(fed.root), 'docs', directive.message.id, { ...fast, now: () => at(1) });

    expect(await Promise.all([29, 30].map((m) => stateOf(fed.root, question.message.id, m)))).toEqual([
      'acknowledged',
      'expired',
    ]);
    expect(await stateOf(fed.root, directive.message.id, 600)).toBe('acknowledged');
    expect(await Promise.all([10, 11].map((m) => stateOf(fed.root, late.message.id, m)))).toEqual([
      'delivered',
      'expired',
    ]);
    // Reports have no deadline by default.
    const report = await send(fed.root, { to: 'docs', type: 'report', subject: 'fyi' });
    expect(await stateOf(fed.root, report.message.id, 100_000)).toBe('delivered');
    expect((await showSignal(openFederation(fed.root), late.message.id, { now: at(11) })).delivery.dueAt).toBe(
      at(11).toISOString(),
    );
    // The config's deadlines replace the defaults per type.
    expect(
      (await showSignal(openFederation(fed.root), late.message.id, { now: at(11), deadlines: { directive: '1h' } }))
        .delivery.state,
    ).toBe('delivered');
    expect(
      (await showSignal(openFederation(fed.root), report.message.id, { now: at(10), deadlines: { report: '5m' } }))
        .delivery.state,
    ).toBe('expired');
  });

  it("listing or watching its own inbox marks signals read; listing another party's inbox does not", async () => {
    const fed = await signalFederation(['docs']);
    const directive = await send(fed.root, { to: 'docs', type: 'directive', subject: 'Do it' });
    await listSignals(openFederation(fed.root), { team: 'docs' }, { reader: 'meta', now: at(1) });
    expect(await stateOf(fed.root, directive.message.id, 2)).toBe('delivered');
    const listed = await listSignals(openFederation(fed.root), { team: 'docs' }, { reader: 'docs', now: at(2) });
    expect(listed.signals[0]!.delivery.state).toBe('read');
    const shown = await showSignal(openFederation(fed.root), directive.message.id, { now: at(3) });
    expect(shown.history.map((e) => `${e.event} ${e.detail}`)).toEqual(['sent from meta to docs', 'read by docs']);
    await acknowledgeSignal(openFederation(fed.root), 'docs', directive.message.id, { ...fast, now: () => at(4) });
    expect(await stateOf(fed.root, directive.message.id, 5)).toBe('acknowledged');
  });

  it("a box too big to look up one by one gets the same states from one listing of the facts, and its owner's listing marks the rest read", async () => {
    const fed = await signalFederation(['docs']);
    // More signals than the file store checks one by one (64), so the listing is what answers.
    const sent = [];
    // A second apart, so the listing (oldest first) is in the order sent.
    for (let i = 0; i < 70; i++)
      sent.push(await send(fed.root, { to: 'docs', type: 'directive', subject: `Task ${i}` }, i / 60));
    const [answered, acknowledged, undeliverable, alreadyRead] = sent.map((s) => s.message.id);
    await send(fed.root, { from: 'docs', to: 'meta', type: 'report', subject: 'Done', replyTo: answered }, 1);
    await acknowledgeSignal(openFederation(fed.root), 'docs', acknowledged!, { ...fast, now: () => at(1) });
    const facts = new FileDeliveryFactStore(fed.root, new CheckedRootFolders(fed.root));
    await facts.record(
      undeliverable!,
      'undeliverable',
      { reportedAt: at(1).toISOString(), reason: 'recipient "docs" was away' },
      fast,
    );
    await facts.record(alreadyRead!, 'read', { readAt: at(1).toISOString(), by: 'docs' }, fast);
    const expected = ['answered', 'acknowledged', 'undeliverable', 'read', ...Array<string>(66).fill('delivered')];

    const byOthers = await listSignals(openFederation(fed.root), { team: 'docs' }, { reader: 'meta', now: at(2) });
    expect(byOthers.signals.map((s) => s.delivery.state)).toEqual(expected);
    expect(byOthers.signals[2]!.delivery.undeliverable).toBe('recipient "docs" was away');
    // The same as each signal's own lookup.
    for (const [index, signal] of byOthers.signals.entries())
      expect(await stateOf(fed.root, signal.message.id, 2)).toBe(expected[index]);

    const byOwner = await listSignals(openFederation(fed.root), { team: 'docs' }, { reader: 'docs', now: at(3) });
    expect(byOwner.signals.map((s) => s.delivery.state)).toEqual([
      ...expected.slice(0, 4),
      ...Array<string>(66).fill('read'),
    ]);
    expect(
      (await showSignal(openFederation(fed.root), sent[69]!.message.id, { now: at(4) })).history.map((e) => e.event),
    ).toEqual(['sent', 'read']);
    // The mark recorded before is kept, not replaced.
    expect((await facts.get(alreadyRead!, 'read'))?.readAt).toBe(at(1).toISOString());
  });

  it('a signal not taken by a recipient that is then archived is undeliverable; one it acknowledged stays acknowledged', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const taken = await send(fed.root, { from: 'api', to: 'docs', type: 'report', subject: 'Taken' });
    const waiting = await send(fed.root, { from: 'api', to: 'docs', type: 'report', subject: 'Waiting' });
    await acknowledgeSignal(openFederation(fed.root), 'docs', taken.message.id, fast);
    await writeRegistryStatus(openFederation(fed.root), 'docs', { type: 'ARCHIVE' }, fast);
    expect(await stateOf(fed.root, taken.message.id, 1)).toBe('acknowledged');
    expect((await showSignal(openFederation(fed.root), waiting.message.id, { now: at(1) })).delivery).toMatchObject({
      state: 'undeliverable',
      undeliverable: 'recipient "docs" is archived',
    });
    // The sender's outbox copy tells the same story, its ack read from the recipient's inbox.
    const outbox = await listSignals(openFederation(fed.root), { team: 'api', box: 'outbox' }, { now: at(1) });
    expect(outbox.signals.map((s) => s.delivery.state)).toEqual(['acknowledged', 'undeliverable']);
  });
});

describe('--reply-to', () => {
  it('refuses a reply to an unknown signal or to something that is not an id, writing nothing', async () => {
    const fed = await signalFederation(['docs']);
    const unknown = await refusal(
      send(fed.root, {
        from: 'docs',
        to: 'meta',
        type: 'report',
        subject: 'x',
        replyTo: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      }),
    );
    expect(unknown.code).toBe('UNKNOWN_SIGNAL');
    expect(unknown.message).toMatch(/no signal with id 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d in this federation/);
    const notAnId = await refusal(
      send(fed.root, { from: 'docs', to: 'meta', type: 'report', subject: 'x', replyTo: 'yesterday' }),
    );
    expect(notAnId.code).toBe('INVALID_INPUT');
    expect(notAnId.message).toMatch(/--reply-to: expected the id \(a UUID\)/);
    expect(entries(fed.meta.inbox)).toEqual([]);
    expect(entries(fed.team('docs').outbox)).toEqual([]);
  });

  it('finds the answered signal by a full search when it has no sent record (sent by an older fed or by hand)', async () => {
    const fed = await signalFederation(['docs']);
    const question = await send(fed.root, { to: 'docs', type: 'question', subject: 'Old question' });
    rmSync(join(fed.root, '.fed', 'delivery', `${question.message.id}.sent.json`));
    await send(
      fed.root,
      { from: 'docs', to: 'meta', type: 'report', subject: 'Answer', replyTo: question.message.id },
      1,
    );
    expect(await stateOf(fed.root, question.message.id, 2)).toBe('answered');
  });
});

describe('signal ids are single-use', () => {
  const id = '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b';

  it.each([
    ['another subject', { subject: 'Something else' }, /different subject/],
    ['another type', { type: 'alert' }, /different type/],
    ['another recipient', { to: 'api' }, /different to/],
    ['another body', { body: 'changed' }, /different body/],
  ])(
    'refuses the id reused with %s, naming the existing file; nothing is delivered',
    async (_what, change, message) => {
      const fed = await signalFederation(['docs', 'api']);
      const first = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id });
      const error = await refusal(
        send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id, ...change }, 1),
      );
      expect(error.code).toBe('SIGNAL_ID_REUSED');
      expect(error.message).toMatch(message);
      expect(error.message).toContain(first.inboxPath);
      expect(entries(fed.team('docs').inbox)).toEqual([first.file]);
      expect(entries(fed.team('api').inbox)).toEqual([]);
      expect(entries(fed.meta.outbox)).toEqual([first.file]);
      // One ack acknowledges the one signal there is.
      expect(await acknowledgeSignal(openFederation(fed.root), 'docs', id, fast)).toHaveLength(1);
    },
  );

  it('the same id with identical content is an idempotent retry, even a minute later', async () => {
    const fed = await signalFederation(['docs']);
    const first = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id });
    const retry = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id }, 1);
    expect(retry.delivered).toBe(false);
    expect(retry.message).toEqual(first.message);
    expect(entries(fed.team('docs').inbox)).toEqual([first.file]);
  });

  it("a retry soon after a send that claimed its id but published nothing (killed) is stored under the first send's time; a later one under its own", async () => {
    const fed = await signalFederation(['docs']);
    const first = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id });
    // As if killed between the claim and the copies: the sent fact stays, the copies are not there.
    rmSync(first.inboxPath);
    rmSync(first.outboxPath);
    const soon = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id }, 0.25);
    expect(soon.delivered).toBe(true);
    expect(soon.message.timestamp).toBe(first.message.timestamp);
    expect(entries(fed.team('docs').inbox)).toEqual([first.file]);

    rmSync(soon.inboxPath);
    rmSync(soon.outboxPath);
    // Hours later no first send can still be running: the first delivery is not already overdue.
    const later = await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', body: 'one', id }, 180);
    expect(later.delivered).toBe(true);
    expect(later.message.timestamp).toBe(at(180).toISOString());
    expect(entries(fed.team('docs').inbox)).toEqual([later.file]);
  });

  describe('a send that claimed its id, with a retry of it publishing first', () => {
    async function race(others: number) {
      const fed = await signalFederation(['docs', 'api']);
      const { backend } = openFederation(fed.root);
      const registry = await backend.registry.read();
      const route = {
        from: resolveParty(registry, 'api', { role: 'sender' }),
        to: resolveParty(registry, 'meta', { role: 'recipient' }),
      };
      // Other teams' reports of that second and subject take the first names in meta's inbox.
      const now = new Date();
      const sentOthers = [];
      for (let i = 0; i < others; i++)
        sentOthers.push(
          await sendSignal(
            openFederation(fed.root),
            { from: 'docs', to: 'meta', type: 'report', subject: 'Status', body: `from docs ${i}` },
            { ...fast, now: () => now },
          ),
        );
      const message = {
        id,
        timestamp: now.toISOString(),
        from: 'api',
        to: 'meta',
        type: 'report' as const,
        subject: 'Status',
        body: 'from api',
        protocol: 'file-signal-v1' as const,
      };
      /** The copies of the signal in meta's inbox, by reading every file there. */
      const copies = () =>
        entries(fed.meta.inbox).filter(
          (file) => file.endsWith('.json') && JSON.parse(readFileSync(join(fed.meta.inbox, file), 'utf8')).id === id,
        );
      return { fed, backend, route, message, others: sentOthers, copies };
    }

    it('finds both copies past a same-second collision (the outbox copy is named after the inbox copy)', async () => {
      const { fed, backend, route, message, others } = await race(1);
      const retried = await backend.signals.send(message, route, { ...fast, idempotent: true });
      expect(retried.file).not.toBe(others[0]!.file);
      expect(entries(fed.team('api').outbox)).toEqual([retried.file]);
      const claimed = await backend.signals.send(message, route, { ...fast, idempotent: true, claimed: true });
      expect(claimed).toMatchObject({ delivered: false, file: retried.file });
      expect(entries(fed.meta.inbox)).toEqual([others[0]!.file, retried.file].sort());
      expect(entries(fed.team('api').outbox)).toEqual([retried.file]);
    });

    it('finds the copy past a gap an archived signal of that second left in the run of names', async () => {
      const { backend, route, message, others, copies } = await race(4);
      // The third of that second's signals is gone: the retry's publish jumps past the gap.
      rmSync(others[2]!.inboxPath);
      const retried = await backend.signals.send(message, route, { ...fast, idempotent: true });
      expect(retried.file).not.toBe(others[2]!.file);
      const claimed = await backend.signals.send(message, route, { ...fast, idempotent: true, claimed: true });
      expect(claimed).toMatchObject({ delivered: false, file: retried.file });
      expect(copies()).toEqual([retried.file]);
    });

    it('refuses the id when the copy it finds is another signal (written without a sent fact, by another tool)', async () => {
      const { backend, route, message, copies } = await race(1);
      const foreign = await backend.signals.send({ ...message, body: 'something else' }, route, {
        ...fast,
        idempotent: true,
      });
      await expect(
        backend.signals.send(message, route, { ...fast, idempotent: true, claimed: true }),
      ).rejects.toMatchObject({ code: 'SIGNAL_ID_REUSED' });
      expect(copies()).toEqual([foreign.file]);
    });

    it('that gets to its copies late (stalled) looks where a retry looks: the retry kept its own time', async () => {
      const { backend, route, message, copies } = await race(0);
      const claimedLongAgo = { ...message, timestamp: new Date(Date.now() - 31_000).toISOString() };
      // The retry came after the concurrent window, under its own time (another second, another name).
      const retried = await backend.signals.send(message, route, { ...fast, idempotent: true });
      const claimed = await backend.signals.send(claimedLongAgo, route, { ...fast, idempotent: true, claimed: true });
      expect(claimed).toMatchObject({ delivered: false, file: retried.file });
      expect(copies()).toEqual([retried.file]);
    });
  });

  it('ids spelled in capitals are the same id', async () => {
    const fed = await signalFederation(['docs']);
    await send(fed.root, { to: 'docs', type: 'report', subject: 'Status', id });
    const error = await refusal(send(fed.root, { to: 'docs', type: 'report', subject: 'Other', id: id.toUpperCase() }));
    expect(error.code).toBe('SIGNAL_ID_REUSED');
  });
});
