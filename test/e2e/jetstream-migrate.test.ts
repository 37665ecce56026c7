import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const SUITE = 'fed migrate: a file federation into JetStream and back';

interface Listed {
  signals: Array<{ message: { id: string; subject: string; acknowledged: boolean; acknowledged_at?: string } }>;
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('to-jetstream copies signals, acknowledgments and delivery facts (a second run copies nothing); to-files exports them into a new root', async () => {
    const nats = { FED_NATS_URL: server().url };
    const root = tempDir();
    const fed = (args: string[], env: NodeJS.ProcessEnv = {}, dir = root) => runFed(['--root', dir, ...args], { env });
    expect((await fed(['init', '--name', 'acme'])).code).toBe(0);
    expect((await fed(['team', 'onboard', 'docs'])).code).toBe(0);
    for (const subject of ['first', 'second'])
      expect((await fed(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', subject])).code).toBe(0);
    const [first] = (JSON.parse((await fed(['signal', 'list', '--team', 'docs', '--json'])).stdout) as Listed).signals;
    expect((await fed(['signal', 'ack', first!.message.id, '--team', 'docs'])).code).toBe(0);
    const reply = await fed([
      'signal',
      'send',
      '--from',
      'docs',
      '--to',
      'meta',
      '--type',
      'report',
      '--subject',
      'done',
      '--reply-to',
      first!.message.id,
      '--json',
    ]);
    expect(reply, reply.stderr).toMatchObject({ code: 0 });
    const replyId = (JSON.parse(reply.stdout) as { message: { id: string } }).message.id;
    const answered = async (env: NodeJS.ProcessEnv, dir = root) => {
      const shown = await fed(['signal', 'show', first!.message.id, '--json'], env, dir);
      expect(shown, shown.stderr).toMatchObject({ code: 0 });
      return JSON.parse(shown.stdout) as { delivery: { state: string }; facts: { answered?: { replyId: string } } };
    };
    expect(await answered({})).toMatchObject({ delivery: { state: 'answered' }, facts: { answered: { replyId } } });
    const onFiles = JSON.parse((await fed(['signal', 'list', '--team', 'docs', '--json'])).stdout) as Listed;

    const refused = await fed(['migrate', 'to-jetstream']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no JetStream backend is configured: set FED_NATS_URL');

    const copied = await fed(['migrate', 'to-jetstream', '--json'], nats);
    expect(copied, copied.stderr).toMatchObject({ code: 0 });
    // Facts: the three sent claims and the answer.
    expect(JSON.parse(copied.stdout)).toMatchObject({ teams: 1, signals: 3, acknowledgments: 1, deliveryFacts: 4 });
    expect(JSON.parse((await fed(['migrate', 'to-jetstream', '--json'], nats)).stdout)).toMatchObject({
      signals: 0,
      acknowledgments: 0,
      deliveryFacts: 0,
    });
    expect(await answered(nats)).toMatchObject({ delivery: { state: 'answered' }, facts: { answered: { replyId } } });
    // The id stays used on JetStream: another signal under it is refused.
    const reused = await fed(
      ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'other', '--id', replyId],
      nats,
    );
    expect(reused.code).toBe(2);
    expect(reused.stderr).toContain(`signal id ${replyId} was already used`);
    const onJetStream = JSON.parse((await fed(['signal', 'list', '--team', 'docs', '--json'], nats)).stdout) as Listed;
    expect(onJetStream.signals.map((s) => s.message)).toEqual(onFiles.signals.map((s) => s.message));

    const back = tempDir();
    expect((await fed(['init', '--name', 'acme'], nats, back)).stdout).toContain('joined federation "acme" (1 team)');
    const exported = await fed(['migrate', 'to-files'], nats, back);
    expect(exported, exported.stderr).toMatchObject({ code: 0 });
    expect(exported.stdout).toMatch(
      /copied .* → .*team-registry\.json: 1 team\(s\), 3 signal\(s\), 1 acknowledgment\(s\), 4 delivery fact\(s\)/,
    );
    expect(await answered({}, back)).toMatchObject({
      delivery: { state: 'answered' },
      facts: { answered: { replyId } },
    });
    expect(existsSync(join(back, '.fed', 'team-registry.json'))).toBe(true);
    const onFilesAgain = JSON.parse(
      (await fed(['signal', 'list', '--team', 'docs', '--json'], {}, back)).stdout,
    ) as Listed;
    expect(onFilesAgain.signals.map((s) => s.message)).toEqual(onFiles.signals.map((s) => s.message));
  }, 120_000);
});
