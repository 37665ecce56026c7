import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { openFederation } from 'fed';
import { openFileBackend } from 'fed/testing';

const SUITE = 'fed migrate: a file federation into JetStream and back';

interface Team {
  location: string;
}

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
    // Every exported workspace carries its team marker: a command run inside it acts as that team.
    const workspace = join(back, '.fed', 'teams', 'docs');
    expect(JSON.parse(readFileSync(join(workspace, '.fed', 'team.json'), 'utf8'))).toEqual({
      federationRoot: back,
      domainId: 'docs',
    });
    const inside = await runFed(['signal', 'list', '--json'], { cwd: workspace });
    expect(inside, inside.stderr).toMatchObject({ code: 0 });
    expect((JSON.parse(inside.stdout) as Listed).signals.map((s) => s.message)).toEqual(
      onFiles.signals.map((s) => s.message),
    );
  }, 120_000);

  /** A file federation "acme-<name>" with team docs and one signal to it, copied to another folder. */
  async function copiedFederation(name: string) {
    const original = tempDir();
    const fed = (args: string[], env: NodeJS.ProcessEnv = {}, dir = original) =>
      runFed(['--root', dir, ...args], { env });
    expect((await fed(['init', '--name', name])).code).toBe(0);
    for (const team of ['docs', 'ops']) expect((await fed(['team', 'onboard', team])).code).toBe(0);
    expect((await fed(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'hi'])).code).toBe(0);
    const copy = join(tempDir(), 'copy');
    cpSync(original, copy, { recursive: true });
    const listed = async (dir: string, env: NodeJS.ProcessEnv = {}) => {
      const list = await fed(['signal', 'list', '--team', 'docs', '--json'], env, dir);
      expect(list, list.stderr).toMatchObject({ code: 0 });
      return (JSON.parse(list.stdout) as Listed).signals.map((s) => s.message);
    };
    const teams = async (dir: string, env: NodeJS.ProcessEnv) => {
      const list = await fed(['team', 'list', '--json'], env, dir);
      return { code: list.code, stderr: list.stderr, list: list.code === 0 ? (JSON.parse(list.stdout) as Team[]) : [] };
    };
    return { original, copy, fed, listed, teams };
  }

  it("to-jetstream of a copied federation registers the copy's own workspaces and points their markers at it", async () => {
    const nats = { FED_NATS_URL: server().url };
    const { original, copy, fed, listed, teams } = await copiedFederation('copied');
    const registryBefore = readFileSync(join(original, '.fed', 'team-registry.json'), 'utf8');
    const migrated = await fed(['migrate', 'to-jetstream'], nats, copy);
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
    expect((await teams(copy, nats)).list.map((team) => team.location)).toEqual([
      join(copy, '.fed', 'teams', 'docs'),
      join(copy, '.fed', 'teams', 'ops'),
    ]);
    expect(await listed(copy, nats)).toEqual(await listed(original));
    for (const team of ['docs', 'ops'])
      expect(JSON.parse(readFileSync(join(copy, '.fed', 'teams', team, '.fed', 'team.json'), 'utf8'))).toEqual({
        federationRoot: copy,
        domainId: team,
      });
    const doctor = await fed(['doctor'], nats, copy);
    expect(doctor, doctor.stdout).toMatchObject({ code: 0 });
    expect(doctor.stdout).not.toContain('another working directory');
    // The original federation is left as it was.
    expect(readFileSync(join(original, '.fed', 'team-registry.json'), 'utf8')).toBe(registryBefore);
  }, 120_000);

  it('to-jetstream refuses a team without a workspace before writing anything; once restored, it runs through', async () => {
    const nats = { FED_NATS_URL: server().url };
    const { original, copy, fed, listed, teams } = await copiedFederation('partial');
    const ops = join(copy, '.fed', 'teams', 'ops');
    rmSync(ops, { recursive: true });
    const refused = await fed(['migrate', 'to-jetstream'], nats, copy);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('team "ops"');
    // Nothing was written: JetStream holds no federation yet.
    expect(await teams(copy, nats)).toMatchObject({ code: 2, list: [] });
    cpSync(join(original, '.fed', 'teams', 'ops'), ops, { recursive: true });
    const migrated = await fed(['migrate', 'to-jetstream'], nats, copy);
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
    expect(await listed(copy, nats)).toEqual(await listed(original));
  }, 120_000);

  it('a re-run finishes a to-jetstream of a copied federation that stopped after writing the old locations', async () => {
    const nats = { FED_NATS_URL: server().url };
    const { original, copy, fed, listed, teams } = await copiedFederation('interrupted');
    // What an interrupted (or older) migration left: the registry in JetStream as the copy's file says, nothing else.
    const jetstream = openFederation(copy, { env: nats }).backend;
    expect(await jetstream.registry.create(await openFileBackend(copy).registry.read())).toBe(true);
    const migrated = await fed(['migrate', 'to-jetstream', '--json'], nats, copy);
    expect(migrated, migrated.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(migrated.stdout)).toMatchObject({ teams: 2, signals: 1 });
    expect((await teams(copy, nats)).list.map((team) => team.location)).toEqual([
      join(copy, '.fed', 'teams', 'docs'),
      join(copy, '.fed', 'teams', 'ops'),
    ]);
    expect(await listed(copy, nats)).toEqual(await listed(original));
  }, 120_000);

  it('to-files refuses a workspace it may not write before writing anything', async () => {
    const nats = { FED_NATS_URL: server().url };
    const { original, fed } = await copiedFederation('exported');
    expect((await fed(['migrate', 'to-jetstream'], nats, original)).code).toBe(0);
    const back = tempDir();
    expect((await fed(['init', '--name', 'exported'], nats, back)).code).toBe(0);
    const elsewhere = tempDir();
    // The folder of the workspaces is a link: no workspace is made through it.
    symlinkSync(elsewhere, join(back, '.fed', 'teams'));
    const throughLink = await fed(['migrate', 'to-files'], nats, back);
    expect(throughLink.code).toBe(2);
    expect(throughLink.stderr).toContain('symbolic link');
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(join(back, '.fed', 'teams'));
    // A workspace is a link.
    mkdirSync(join(back, '.fed', 'teams'));
    symlinkSync(elsewhere, join(back, '.fed', 'teams', 'ops'));
    const refused = await fed(['migrate', 'to-files'], nats, back);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('symbolic link');
    expect(existsSync(join(back, '.fed', 'team-registry.json'))).toBe(false);
    expect(existsSync(join(back, '.fed', 'teams', 'docs'))).toBe(false);
    expect(readdirSync(elsewhere)).toEqual([]);
  }, 120_000);
});
