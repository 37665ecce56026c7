import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
import { toJsonText, workspacePaths } from 'fed/testing';
import { newestSince } from '../../../src/engine/messaging/newest-since.js';
import { tempDir } from '../../helpers/temp-dir.js';

type SignalTransport = Parameters<typeof newestSince>[0];

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, seconds));

/** A team's inbox with two directives and two reports, ten seconds apart or so. */
async function inboxWithHistory() {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root);
  const team = await onboardTeam(fed, { domain: 'docs' }, { durable: false });
  const send = (seconds: number, type: 'directive' | 'report', subject: string) =>
    sendSignal(fed, { to: 'docs', type, subject }, { durable: false, now: () => at(seconds) });
  await send(0, 'directive', 'First mission');
  await send(5, 'report', 'Status');
  const second = await send(10, 'directive', 'Second mission');
  await send(20, 'report', 'Status again');
  return { send, transport: fed.backend.signals, party: { id: 'docs', entry: team }, second };
}

/** The same transport without SignalTransport.newest: the box is listed (JetStream's way). */
const withoutNewest = (transport: SignalTransport): SignalTransport =>
  Object.assign(Object.create(transport) as SignalTransport, { newest: undefined });

describe('newestSince', () => {
  for (const how of ['newest first', 'listed'] as const) {
    it(`the newest signal of the types asked for since a moment, and none older (${how})`, async () => {
      const { transport: fileTransport, party, second } = await inboxWithHistory();
      const transport = how === 'listed' ? withoutNewest(fileTransport) : fileTransport;
      const since = (seconds: number, wanted?: (id: string) => boolean) =>
        newestSince(transport, party, 'inbox', at(seconds).toISOString(), ['directive'], (message) =>
          wanted ? wanted(message.id) : true,
        ).then((entry) => entry?.message.subject);

      expect(await since(0)).toBe('Second mission');
      expect(await since(10)).toBe('Second mission');
      // Later reports are passed over; nothing of the type after the moment is none.
      expect(await since(11)).toBeUndefined();
      // What `wanted` refuses is passed over too, back to the moment and no further.
      expect(await since(0, (id) => id !== second.message.id)).toBe('First mission');
      expect(await since(1, (id) => id !== second.message.id)).toBeUndefined();
    });
  }

  for (const how of ['newest first', 'listed'] as const) {
    it(`pages back past what is refused, and reads a signal another tool named (${how})`, async () => {
      const { send, transport: fileTransport, party } = await inboxWithHistory();
      const transport = how === 'listed' ? withoutNewest(fileTransport) : fileTransport;
      // More refused directives after the one wanted than a first page holds.
      for (let i = 0; i < 12; i++) await send(30 + i, 'directive', `Refused ${i}`);
      const wanted = await newestSince(transport, party, 'inbox', at(0).toISOString(), ['directive'], (message) =>
        message.subject.startsWith('Second'),
      );
      expect(wanted?.message.subject).toBe('Second mission');

      // A directive another tool wrote under a name of its own, newer than all: its time is known only by reading it.
      writeFileSync(
        join(workspacePaths(party.entry.location).inbox, 'by-hand.json'),
        toJsonText({
          id: '00000000-0000-4000-8000-000000000001',
          timestamp: at(50).toISOString(),
          from: 'meta',
          to: 'docs',
          type: 'directive',
          subject: 'By hand',
          body: '',
          protocol: 'file-signal-v1',
        }),
      );
      const newest = await newestSince(transport, party, 'inbox', at(45).toISOString(), ['directive']);
      expect(newest?.message.subject).toBe('By hand');
    });
  }

  it('refuses a moment that is not a timestamp, rather than reading the whole box', async () => {
    const { transport, party } = await inboxWithHistory();
    await expect(newestSince(transport, party, 'inbox', 'yesterday', ['directive'])).rejects.toThrow(
      'signalsSince: "yesterday" is not a timestamp',
    );
  });
});
