import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../conformance/conformance-federation.js';

const SUITE = 'delivery states on JetStream, from two working directories that share nothing but the NATS URL';

interface Shown {
  delivery: { state: string };
  replyTo: string | null;
  history: Array<{ event: string; detail: string }>;
}

interface Listed {
  signals: Array<{ message: { id: string }; delivery: { state: string } }>;
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('show, list --state, send --reply-to and a reused --id see what the other machine did', async () => {
    const metaMachine = tempDir('fed-machine-');
    const teamMachine = tempDir('fed-machine-');
    const onMeta = (args: string[]) =>
      runFed(['--root', metaMachine, ...args], { env: { FED_NATS_URL: server().url }, timeoutMs: 60_000 });
    // The team's machine acts as the team, as a launched agent does.
    const onTeam = (args: string[]) =>
      runFed(['--root', teamMachine, ...args], {
        env: { FED_NATS_URL: server().url, FED_TEAM: 'docs' },
        timeoutMs: 60_000,
      });
    // The operator on the team's machine: meta there, no FED_TEAM (a team may send only as itself).
    const onTeamMachineAsMeta = (args: string[]) =>
      runFed(['--root', teamMachine, ...args], { env: { FED_NATS_URL: server().url }, timeoutMs: 60_000 });
    const ok = async (run: Promise<{ code: number | null; stdout: string; stderr: string }>) => {
      const result = await run;
      expect(result, result.stderr).toMatchObject({ code: 0 });
      return result.stdout;
    };
    const show = async (id: string) => JSON.parse(await ok(onMeta(['signal', 'show', id, '--json']))) as Shown;
    const inState = async (state: string) =>
      (
        JSON.parse(await ok(onMeta(['signal', 'list', '--team', 'docs', '--state', state, '--json']))) as Listed
      ).signals.map((s) => s.message.id);

    await ok(onMeta(['init', '--name', 'acme']));
    await ok(onTeam(['init', '--name', 'acme']));
    await ok(onTeam(['team', 'onboard', 'docs']));

    const question = randomUUID();
    const ask = [
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'question',
      '--subject',
      'Which database?',
      '--body',
      'Postgres or SQLite?',
      '--id',
      question,
    ];
    await ok(onMeta(ask));
    expect((await show(question)).delivery.state).toBe('delivered');

    // The team reads its inbox on its machine: meta sees it read.
    await ok(onTeam(['signal', 'list']));
    const read = await show(question);
    expect(read.delivery.state).toBe('read');
    expect(read.history).toContainEqual(expect.objectContaining({ event: 'read', detail: 'by docs' }));
    expect(await inState('read')).toEqual([question]);

    // A retry of the same send from the team's machine is the same signal, delivered once.
    const retried = await onTeamMachineAsMeta([...ask, '--from', 'meta']);
    expect(retried, retried.stderr).toMatchObject({ code: 0 });
    expect(retried.stderr).toContain('was already delivered');

    // The answer names the question, which the team's machine finds through the shared store.
    const answer = JSON.parse(
      await ok(
        onTeam([
          'signal',
          'send',
          '--to',
          'meta',
          '--type',
          'report',
          '--subject',
          'Postgres',
          '--reply-to',
          question,
          '--json',
        ]),
      ),
    ) as {
      message: { id: string };
    };
    const answered = await show(question);
    expect(answered.delivery.state).toBe('answered');
    expect(answered.history).toContainEqual(
      expect.objectContaining({ event: 'answered', detail: `by signal ${answer.message.id} from docs` }),
    );
    expect((await show(answer.message.id)).replyTo).toBe(question);
    expect(await inState('answered')).toEqual([question]);
    expect(await inState('read')).toEqual([]);

    // Acknowledged by id on the team's machine (after answering it), shown on meta's.
    await ok(onTeam(['signal', 'ack', question]));
    expect((await show(question)).history.map((event) => event.event)).toEqual([
      'sent',
      'read',
      'answered',
      'acknowledged',
    ]);

    // The question's id is used, whichever machine tries it again with another signal.
    const reused = await onTeam([
      'signal',
      'send',
      '--to',
      'meta',
      '--type',
      'report',
      '--subject',
      'Another',
      '--id',
      question,
    ]);
    expect(reused.code).toBe(2);
    expect(reused.stderr).toContain(
      `signal id ${question} was already used for another signal (question "Which database?" from meta to docs`,
    );
    const unknown = await onTeam([
      'signal',
      'send',
      '--to',
      'meta',
      '--type',
      'report',
      '--subject',
      'Re',
      '--reply-to',
      randomUUID(),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--reply-to: no signal with id');
    expect(
      (JSON.parse(await ok(onMeta(['signal', 'list', '--team', 'docs', '--json']))) as Listed).signals,
    ).toHaveLength(1);

    // Nothing to move on JetStream: refused, saying so, and every signal stays where it was.
    const archive = await onMeta(['signal', 'archive', '--older-than', '1m']);
    expect(archive.code).toBe(2);
    expect(archive.stderr).toContain('keeps its signals in the nats-jetstream backend, where nothing is archived');
    expect(await inState('answered')).toEqual([question]);
  }, 180_000);

  it('fed monitor on one machine escalates a question left unanswered on the other, once', async () => {
    const metaMachine = tempDir('fed-machine-');
    const teamMachine = tempDir('fed-machine-');
    const env = { FED_NATS_URL: server().url };
    const onMeta = (args: string[]) => runFed(['--root', metaMachine, ...args], { env, timeoutMs: 60_000 });
    const onTeam = (args: string[]) => runFed(['--root', teamMachine, ...args], { env, timeoutMs: 60_000 });
    for (const [on, args] of [
      [onMeta, ['init', '--name', 'beta']],
      [onTeam, ['init', '--name', 'beta']],
      [onTeam, ['team', 'onboard', 'docs']],
    ] as const) {
      const result = await on([...args]);
      expect(result, result.stderr).toMatchObject({ code: 0 });
    }
    const config = join(metaMachine, 'federate.config.json');
    writeFileSync(
      config,
      JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), signalDeadlines: { question: '1s' } }),
    );
    const question = randomUUID();
    expect(
      (
        await onMeta([
          'signal',
          'send',
          '--to',
          'docs',
          '--type',
          'question',
          '--subject',
          'Which database?',
          '--id',
          question,
        ])
      ).code,
    ).toBe(0);

    let stuck: Array<{ id: string; state: string; alertId: string | null }> = [];
    await eventually(
      async () => {
        const cycle = await onMeta(['monitor', '--json']);
        expect(cycle, cycle.stderr).toMatchObject({ code: 0 });
        stuck = (JSON.parse(cycle.stdout) as { stuckSignals: typeof stuck }).stuckSignals;
        return stuck.length > 0;
      },
      30_000,
      'the question to be overdue',
    );
    expect(stuck).toEqual([expect.objectContaining({ id: question, state: 'expired', alertId: expect.any(String) })]);
    expect((await onMeta(['monitor', '--json'])).code).toBe(0);
    const alerts = (
      JSON.parse((await onMeta(['signal', 'list', '--team', 'meta', '--type', 'alert', '--json'])).stdout) as {
        signals: Array<{ message: { subject: string } }>;
      }
    ).signals;
    expect(alerts.map((a) => a.message.subject)).toEqual(['Overdue question to docs: Which database?']);
    expect((JSON.parse((await onMeta(['signal', 'show', question, '--json'])).stdout) as Shown).delivery.state).toBe(
      'expired',
    );
    // The escalation is a fact of the federation, seen from the team's machine too (its deadlines are its own config's).
    const onTheTeamsMachine = JSON.parse((await onTeam(['signal', 'show', question, '--json'])).stdout) as Shown;
    expect(onTheTeamsMachine.history.map((event) => event.event)).toContain('escalated');

    // Archiving the team returns what it never took to its sender, from the shared registry and facts.
    const archived = await onMeta(['team', 'archive', 'docs', '--json']);
    expect(archived, archived.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(archived.stdout)).toMatchObject({ team: 'docs', to: 'archived', undeliverable: [question] });
    expect((JSON.parse((await onTeam(['signal', 'show', question, '--json'])).stdout) as Shown).delivery.state).toBe(
      'undeliverable',
    );
  }, 120_000);
});
