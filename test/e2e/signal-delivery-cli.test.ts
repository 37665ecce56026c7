import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed, type FedOptions } from '../helpers/fed-cli.js';
import { entries, signalFederation, type SignalFederation } from '../helpers/signal-federation.js';

const fedIn = (fed: SignalFederation, args: readonly string[], options: FedOptions = {}) =>
  runFed(['--root', fed.root, ...args], options);
const json = <T>(text: string) => JSON.parse(text) as T;

/** Signal delivery through the built CLI: replies, show, list --state/--all, archive, and the monitor's alerts. */
describe('signal delivery (built CLI)', () => {
  it('a reply marks its question answered: send --reply-to, show, list --state', async () => {
    const fed = await signalFederation(['docs']);
    const question = json<{ id: string }>(
      (
        await fedIn(fed, [
          'signal',
          'send',
          '--to',
          'docs',
          '--type',
          'question',
          '--subject',
          'Which services?',
          '--json',
        ])
      ).stdout,
    );
    const sent = await fedIn(fed, [
      'signal',
      'send',
      '--from',
      'docs',
      '--to',
      'meta',
      '--type',
      'report',
      '--subject',
      'api and web',
      '--reply-to',
      question.id,
      '--json',
    ]);
    expect(sent.code).toBe(0);
    const reply = json<{ id: string; replyTo: string }>(sent.stdout);
    expect(reply.replyTo).toBe(question.id);

    const shown = await fedIn(fed, ['signal', 'show', question.id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^state\s+answered$/m);
    expect(shown.stdout).toContain(`answered     by signal ${reply.id} from docs`);
    const report = json<{ delivery: { state: string }; history: { event: string }[] }>(
      (await fedIn(fed, ['signal', 'show', question.id, '--json'])).stdout,
    );
    expect(report.delivery.state).toBe('answered');
    expect(report.history.map((e) => e.event)).toEqual(['sent', 'answered']);

    const listed = json<{
      signals: { message: { id: string }; delivery: { state: string }; answeredBy: string | null }[];
    }>((await fedIn(fed, ['signal', 'list', '--team', 'docs', '--state', 'answered', '--json'])).stdout);
    expect(listed.signals.map((s) => [s.message.id, s.delivery.state, s.answeredBy])).toEqual([
      [question.id, 'answered', reply.id],
    ]);
    // The list names the answer too, as show does; an unanswered signal has none.
    const table = (await fedIn(fed, ['signal', 'list', '--team', 'docs'])).stdout.split('\n');
    expect(table[0]).toMatch(/\bSTATE\b.*\bANSWERED BY\b/);
    expect(table.find((line) => line.includes(question.id))).toMatch(
      new RegExp(`answered .*${question.id}\\s+${reply.id}\\s+Which services\\?`),
    );
    const unanswered = json<{ signals: { answeredBy: string | null }[] }>(
      (await fedIn(fed, ['signal', 'list', '--json'])).stdout,
    );
    expect(unanswered.signals.map((s) => s.answeredBy)).toEqual([null]);
    expect(
      json<{ signals: unknown[] }>(
        (await fedIn(fed, ['signal', 'list', '--team', 'docs', '--state', 'delivered', '--json'])).stdout,
      ).signals,
    ).toEqual([]);
  });

  it.each([
    [
      'an id reused for another signal',
      (id: string) => ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'Other', '--id', id],
      /signal id \S+ was already used for another signal \(report "First" from meta to docs, \S+\.json\) with a different subject/,
    ],
    [
      'a reply to an unknown signal',
      () => [
        'signal',
        'send',
        '--to',
        'docs',
        '--type',
        'report',
        '--subject',
        'x',
        '--reply-to',
        '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
      ],
      /--reply-to: no signal with id/,
    ],
    [
      'show of an unknown id',
      () => ['signal', 'show', '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'],
      /no signal with id 9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d in any box/,
    ],
    [
      'show of something that is not an id',
      () => ['signal', 'show', 'latest'],
      /expected a signal id \(a UUID\), got "latest"/,
    ],
    [
      'an unknown state',
      () => ['signal', 'list', '--state', 'lost'],
      /Allowed choices are delivered, read, acknowledged, answered, expired, undeliverable/,
    ],
    [
      'an archive age without a unit',
      () => ['signal', 'archive', '--older-than', '30'],
      /expected a duration > 0 with a unit such as 30m, 2h, 7d/,
    ],
    [
      'an archive without an age',
      () => ['signal', 'archive'],
      /required option '--older-than <duration>' not specified/,
    ],
    [
      'a watch count that is not a whole number',
      () => ['signal', 'watch', '--count', '1e3'],
      /option '--count <n>' argument '1e3' is invalid. expected a whole number of signals > 0/,
    ],
  ])('refuses %s: exit 2, a clear message, nothing written', async (_what, args, message) => {
    const fed = await signalFederation(['docs']);
    const first = json<{ id: string; file: string }>(
      (await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'First', '--json'])).stdout,
    );
    const result = await fedIn(fed, args(first.id));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(entries(fed.team('docs').inbox)).toEqual([first.file]);
  });

  it('archive moves what is done out of the live inbox; list --all and show still find it', async () => {
    const fed = await signalFederation(['docs']);
    const sent = json<{ id: string; file: string }>(
      (await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'Done', '--json'])).stdout,
    );
    await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'Waiting']);
    expect((await fedIn(fed, ['signal', 'ack', sent.id, '--team', 'docs'])).code).toBe(0);

    // Signals are stamped in whole milliseconds: a one-millisecond age is reached by the time archive runs.
    const archived = await fedIn(fed, ['signal', 'archive', '--team', 'docs', '--older-than', '1ms', '--json']);
    expect(archived.code).toBe(0);
    expect(json<unknown[]>(archived.stdout)).toEqual([
      { team: 'docs', box: 'inbox', archived: 1, kept: 1 },
      { team: 'docs', box: 'outbox', archived: 0, kept: 0 },
    ]);
    const live = json<{ signals: { message: { subject: string } }[] }>(
      (await fedIn(fed, ['signal', 'list', '--team', 'docs', '--json'])).stdout,
    );
    expect(live.signals.map((s) => s.message.subject)).toEqual(['Waiting']);
    const all = (await fedIn(fed, ['signal', 'list', '--team', 'docs', '--all'])).stdout;
    expect(all).toMatch(/acknowledged \(archived\).*Done/);
    expect(
      json<{ archived: boolean; path: string }>((await fedIn(fed, ['signal', 'show', sent.id, '--json'])).stdout),
    ).toMatchObject({
      archived: true,
      path: join(fed.team('docs').inbox, 'archive', sent.file),
    });
  });

  it('fed monitor lists an overdue signal and alerts meta about it once', async () => {
    const fed = await signalFederation(['docs']);
    // A directive from another tool, sent an hour ago and never acknowledged (deadline: 10 minutes).
    const id = '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b';
    const timestamp = new Date(Date.now() - 3_600_000).toISOString();
    const message = {
      id,
      timestamp,
      from: 'meta',
      to: 'docs',
      type: 'directive',
      subject: 'Old work',
      body: '',
      protocol: 'file-signal-v1',
    };
    writeFileSync(join(fed.team('docs').inbox, '2026-01-01T000000Z-directive-old-work.json'), JSON.stringify(message));

    const first = await fedIn(fed, ['monitor']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `stuck signals: 1\\n  expired  directive meta → docs "Old work" \\(${id}\\), due \\S+; alert \\S+ to meta`,
      ),
    );
    const second = json<{ stuckSignals: { id: string; alertId: string }[] }>(
      (await fedIn(fed, ['monitor', '--json'])).stdout,
    );
    expect(second.stuckSignals.map((s) => s.id)).toEqual([id]);
    const alerts = json<{ signals: { message: { id: string; subject: string } }[] }>(
      (await fedIn(fed, ['signal', 'list', '--type', 'alert', '--json'])).stdout,
    );
    expect(alerts.signals.map((s) => s.message.subject)).toEqual(['Overdue directive to docs: Old work']);
    expect(second.stuckSignals[0]!.alertId).toBe(alerts.signals[0]!.message.id);
  });

  it('fed team archive returns the signals the team never took to their senders, once', async () => {
    const fed = await signalFederation(['docs', 'api']);
    const sent = json<{ id: string }>(
      (
        await fedIn(fed, [
          'signal',
          'send',
          '--from',
          'api',
          '--to',
          'docs',
          '--type',
          'question',
          '--subject',
          'Schema?',
          '--json',
        ])
      ).stdout,
    );
    const archived = await fedIn(fed, ['team', 'archive', 'docs']);
    expect(archived.code).toBe(0);
    expect(archived.stdout).toBe(
      'docs: active → archived\n1 signal(s) it had not acknowledged returned to their senders as non-delivery alerts\n',
    );
    expect((await fedIn(fed, ['monitor'])).code).toBe(0);
    const alerts = json<{ signals: { message: { subject: string; body: string } }[] }>(
      (await fedIn(fed, ['signal', 'list', '--team', 'api', '--json'])).stdout,
    );
    expect(alerts.signals.map((s) => s.message.subject)).toEqual(['Undeliverable: Schema?']);
    expect(alerts.signals[0]!.message.body).toContain(sent.id);
    const shown = json<{ delivery: { state: string } }>(
      (await fedIn(fed, ['signal', 'show', sent.id, '--json'])).stdout,
    );
    expect(shown.delivery.state).toBe('undeliverable');
  });

  it('a team watching its own inbox reads the signal it is shown; meta watching it does not', async () => {
    const fed = await signalFederation(['docs']);
    const sent = json<{ id: string }>(
      (await fedIn(fed, ['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Go', '--json'])).stdout,
    );
    const state = async () =>
      json<{ delivery: { state: string } }>((await fedIn(fed, ['signal', 'show', sent.id, '--json'])).stdout).delivery
        .state;
    expect((await fedIn(fed, ['signal', 'watch', '--team', 'docs', '--backlog', '--count', '1'])).code).toBe(0);
    expect(await state()).toBe('delivered');
    const watched = await fedIn(fed, ['signal', 'watch', '--backlog', '--count', '1'], { env: { FED_TEAM: 'docs' } });
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(sent.id);
    expect(await state()).toBe('read');
  });
});
