import { readFileSync } from 'node:fs';
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { createActor } from 'xstate';
import { codingMachine, type DeliverableEvent, deliverableMachine } from 'fed';
import { createInspection, openInspectionLog } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

const mission: DeliverableEvent = {
  type: 'MISSION_ASSIGNED',
  signalId: 'sig-1',
  subject: 'overview',
  body: 'Describe it',
};
const plan: DeliverableEvent = { type: 'PLAN_READY', sources: ['src/'] };

function readLog(file: string): Record<string, unknown>[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** A client of the inspector page's event stream, as the browser page is. */
function openEventStream(url: string): Promise<{
  response: IncomingMessage;
  events: () => Record<string, unknown>[];
  text: () => string;
  ended: Promise<void>;
}> {
  return new Promise((resolve, reject) => {
    get(new URL('events', url), (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      const ended = new Promise<void>((done) => response.on('close', () => done()));
      const events = () =>
        text
          .split('\n\n')
          .filter((block) => block.startsWith('data: '))
          .map((block) => JSON.parse(block.slice('data: '.length)) as Record<string, unknown>);
      resolve({ response, events, text: () => text, ended });
    }).on('error', reject);
  });
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('inspection log (--inspect-log)', () => {
  test('records a real actor: its start, every event, and each snapshot with state and context', async () => {
    const file = join(tempDir(), 'logs', 'inspect.jsonl');
    const inspection = await createInspection({ logFile: file });
    expect(inspection.url).toBeUndefined();
    const actor = createActor(deliverableMachine, { inspect: inspection.inspect }).start();
    actor.send(mission);
    actor.send(plan);
    actor.stop();
    await inspection.stop();

    const records = readLog(file);
    expect(records.every((r) => typeof r.at === 'string' && r.sessionId === actor.sessionId)).toBe(true);
    expect(records.find((r) => r.type === '@xstate.actor')).toBeDefined();
    const sent = records.filter((r) => r.type === '@xstate.event').map((r) => (r.event as { type: string }).type);
    expect(sent).toEqual(['xstate.init', 'MISSION_ASSIGNED', 'PLAN_READY']);
    const snapshots = records
      .filter((r) => r.type === '@xstate.snapshot')
      .map((r) => r.snapshot as { value: string; status: string; context: { mission: unknown } });
    expect(snapshots.map((s) => [s.value, s.status])).toEqual([
      ['preparing', 'active'],
      ['preparing', 'active'],
      ['scanning', 'active'],
      ['scanning', 'stopped'],
    ]);
    expect(snapshots.at(-1)!.context.mission).toEqual({ signalId: 'sig-1', subject: 'overview', body: 'Describe it' });
    const microstep = records.find((r) => r.type === '@xstate.microstep' && r.value === 'scanning');
    expect(microstep?.transitions).toEqual([
      { event: 'PLAN_READY', source: 'deliverable.preparing', targets: ['deliverable.scanning'] },
    ]);
  });

  test('a log path that is a folder is refused saying to give a file, not to remove the folder', async () => {
    const dir = tempDir();
    await expect(createInspection({ logFile: dir })).rejects.toThrow(
      `${dir} is a directory, not a regular file; fed does not write through it. give the path of a file to append to (fed creates it when it is missing)`,
    );
  });

  test('writes valid JSON lines even when an event carries values JSON cannot hold, and appends across runs', async () => {
    const file = join(tempDir(), 'inspect.jsonl');
    for (let run = 0; run < 2; run++) {
      const inspection = await createInspection({ logFile: file });
      const actor = createActor(codingMachine, { inspect: inspection.inspect }).start();
      const odd: Record<string, unknown> = {
        type: 'QUESTION_RECEIVED',
        signalId: 'q',
        subject: 'why?',
        size: 10n,
        callback: () => 0,
      };
      odd.self = odd;
      actor.send(odd as never);
      actor.stop();
      await inspection.stop();
    }
    const records = readLog(file);
    const questions = records.filter(
      (r) => r.type === '@xstate.event' && (r.event as { type: string }).type === 'QUESTION_RECEIVED',
    );
    expect(questions).toHaveLength(2);
    expect(questions[0]!.event).toMatchObject({ size: '10n', callback: '[Function callback]', self: '[Circular]' });
  });

  test('a record that cannot be written never disturbs the actor; closing the log reports it', () => {
    const file = join(tempDir(), 'inspect.jsonl');
    const log = openInspectionLog(file, () => {
      throw new Error('clock unavailable');
    });
    const actor = createActor(deliverableMachine, { inspect: log.observe }).start();
    actor.send(mission);
    expect(actor.getSnapshot().context.mission).not.toBeNull();
    actor.stop();
    expect(() => log.close()).toThrow(/inspection log .*inspect\.jsonl is incomplete: clock unavailable/);
  });
});

describe('Stately inspector (--inspect)', () => {
  test('serves a page embedding the Stately inspector, and streams a real actor to it', async () => {
    const inspection = await createInspection({ inspect: true });
    onTestFinished(() => inspection.stop());
    expect(inspection.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    const page = await fetch(inspection.url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<iframe id="inspector" src="https://stately.ai/inspect">');
    expect((await fetch(new URL('nope', inspection.url))).status).toBe(404);

    const early = await openEventStream(inspection.url!);
    const actor = createActor(deliverableMachine, { inspect: inspection.inspect }).start();
    actor.send(mission);
    actor.send(plan);
    const reachedScanning = (events: Record<string, unknown>[]) =>
      events.some((e) => e.type === '@xstate.snapshot' && (e.snapshot as { value?: string }).value === 'scanning');
    await until(() => reachedScanning(early.events()), 'the scanning snapshot on the stream');
    const registered = early.events().find((e) => e.type === '@xstate.actor');
    expect(registered).toMatchObject({ name: 'deliverable', sessionId: actor.sessionId });

    // A page opened later still sees what happened before it connected.
    const late = await openEventStream(inspection.url!);
    await until(() => reachedScanning(late.events()), 'the replayed events on a late stream');

    actor.stop();
    await inspection.stop();
    await Promise.all([early.ended, late.ended]);
    expect(early.text()).toContain('event: disconnected');
  });

  test('with both options, the log and the inspector see the same actor', async () => {
    const file = join(tempDir(), 'both.jsonl');
    const inspection = await createInspection({ inspect: true, logFile: file });
    const stream = await openEventStream(inspection.url!);
    const actor = createActor(deliverableMachine, { inspect: inspection.inspect }).start();
    actor.send({ type: 'PAUSE' });
    await until(
      () => stream.events().some((e) => (e.snapshot as { value?: string } | undefined)?.value === 'paused'),
      'paused on the stream',
    );
    actor.stop();
    await inspection.stop();
    await inspection.stop();
    expect(readLog(file).some((r) => (r.snapshot as { value?: string } | undefined)?.value === 'paused')).toBe(true);
  });

  test('without options there is nothing to inspect and nothing to stop', async () => {
    const inspection = await createInspection({});
    expect(inspection.inspect).toBeUndefined();
    expect(inspection.url).toBeUndefined();
    await expect(inspection.stop()).resolves.toBeUndefined();
  });

  test('a port in use is an error, and the log opened with it is closed again', async () => {
    const first = await createInspection({ inspect: true });
    onTestFinished(() => first.stop());
    const port = Number(new URL(first.url!).port);
    await expect(createInspection({ inspect: true, port, logFile: join(tempDir(), 'x.jsonl') })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });
});
