import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FileChatChannel } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { freePort, skipWithoutNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { useNatsServer } from '../helpers/use-nats-server.js';

const SUITE =
  'doctor, actors and the chat bridge on JetStream: two working directories that share nothing but the NATS URL';

interface DoctorJson {
  findings: Array<{
    check: string;
    team?: string;
    path: string;
    problem: string;
    fix?: string;
    fixable: boolean;
    fixed: boolean;
    fixError?: string;
  }>;
  notes: string[];
  healthy: boolean;
}

let federations = 0;

/** Meta in one working directory, team docs onboarded in another; both joined to one federation by the NATS URL. */
async function twoMachines(url: string) {
  const name = `ops${++federations}`;
  const env = { FED_NATS_URL: url };
  const metaRoot = tempDir('fed-meta-machine-');
  const teamRoot = tempDir('fed-team-machine-');
  const onMeta = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runFed(['--root', metaRoot, ...args], { env: { ...env, ...extra }, timeoutMs: 60_000 });
  const onTeam = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
    runFed(['--root', teamRoot, ...args], { env: { ...env, ...extra }, timeoutMs: 60_000 });
  for (const step of [onMeta(['init', '--name', name]), onTeam(['init', '--name', name])]) {
    const result = await step;
    expect(result, result.stderr).toMatchObject({ code: 0 });
  }
  const onboarded = await onTeam(['team', 'onboard', 'docs']);
  expect(onboarded, onboarded.stderr).toMatchObject({ code: 0 });
  return { name, env, metaRoot, teamRoot, onMeta, onTeam };
}

const doctorJson = (result: { stdout: string }): DoctorJson => JSON.parse(result.stdout) as DoctorJson;

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('fed doctor: each working directory checks its own teams on disk and notes the others; a workspace registered on this host that is gone is a problem', async () => {
    const { onMeta, onTeam, teamRoot } = await twoMachines(server().url);

    const onMetaReport = await onMeta(['doctor']);
    expect(onMetaReport, onMetaReport.stderr).toMatchObject({ code: 0 });
    expect(onMetaReport.stdout).toContain(
      `note: docs works in another working directory (${join(teamRoot, '.fed', 'teams', 'docs')} on `,
    );
    expect(onMetaReport.stdout).toContain('note: nats-server 2.9');
    expect(onMetaReport.stdout).toMatch(/no problems found in /);
    const onTeamReport = doctorJson(await onTeam(['doctor', '--json']));
    expect(onTeamReport).toMatchObject({ findings: [], healthy: true });
    expect(onTeamReport.notes.filter((note) => note.startsWith('docs '))).toEqual([]);

    // The team's working directory is removed: the meta machine (same host) sees the registered workspace is gone.
    rmSync(join(teamRoot, '.fed', 'teams', 'docs'), { recursive: true, force: true });
    const gone = await onMeta(['doctor', '--json']);
    expect(gone.code).toBe(1);
    expect(doctorJson(gone).findings).toEqual([
      expect.objectContaining({
        check: 'workspace',
        team: 'docs',
        problem: expect.stringContaining('is registered on this host'),
        fixable: false,
      }),
    ]);
  });

  it('fed doctor: backend.replicas above 1 on a single server is reported (it keeps one copy), with the durability risk of one copy', async () => {
    const { name, onMeta, metaRoot } = await twoMachines(server().url);
    writeFileSync(
      join(metaRoot, 'federate.config.json'),
      JSON.stringify({ federationName: name, backend: { type: 'jetstream', replicas: 3 } }),
    );

    const result = await onMeta(['doctor', '--json']);
    expect(result.code).toBe(1);
    const report = doctorJson(result);
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'backend',
        problem: expect.stringMatching(
          /^backend\.replicas asks for 3 copies of every stream and bucket, but the NATS server at nats:\/\/127\.0\.0\.1:\d+ is a single node, not a cluster/,
        ),
        fixable: false,
      }),
    ]);
    expect(report.notes[0]).toMatch(
      /^nats-server 2\.9\.\d+ syncs JetStream data to disk periodically .* with one copy of each stream/,
    );
  });

  it('backend.replicas above 1 for a new federation on a single server: init, send and doctor name the setting and its fix (exit 2), no crash', async () => {
    const root = tempDir();
    const config = JSON.stringify({
      federationName: `r3new${++federations}`,
      backend: { type: 'jetstream', replicas: 3 },
    });
    writeFileSync(join(root, 'federate.config.json'), config);
    const on = (args: string[]) => runFed(['--root', root, ...args], { env: { FED_NATS_URL: server().url } });
    const refusal =
      /^fed: backend\.replicas asks for 3 copies of every stream and bucket, but the NATS server at nats:\/\/127\.0\.0\.1:\d+ is a single node, not a cluster: it refuses to keep more than one copy; set backend\.replicas to 1 in federate\.config\.json, or run a JetStream cluster of at least 3 nodes and list them in backend\.servers\n$/;

    const init = await on(['init', '--name', 'ignored']);
    expect(init, init.stderr).toMatchObject({ code: 2, stderr: expect.stringMatching(refusal) });
    expect(readdirSync(root)).toEqual(['federate.config.json']);
    const sent = await on(['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'hello']);
    expect(sent, sent.stderr).toMatchObject({ code: 2, stderr: expect.stringMatching(refusal) });

    const doctor = await on(['doctor', '--json']);
    expect(doctor.code, doctor.stderr).toBe(1);
    expect(doctorJson(doctor).findings).toEqual([
      expect.objectContaining({
        check: 'backend',
        problem: expect.stringMatching(
          /^backend\.replicas asks for 3 copies of every stream and bucket, but the NATS server at nats:\/\/127\.0\.0\.1:\d+ is a single node, not a cluster: it refuses to keep more than one copy$/,
        ),
        fix: 'set backend.replicas to 1 in federate.config.json, or run a JetStream cluster of at least 3 nodes and list them in backend.servers',
        fixable: false,
      }),
    ]);
  });

  it('fed actors run: the meta machine runs no team of another working directory and succeeds; the team machine applies what meta sends, once and while watching', async () => {
    const { onMeta, onTeam, env, teamRoot } = await twoMachines(server().url);
    expect(
      (await onMeta(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'write the guide'])).code,
    ).toBe(0);

    const elsewhere = await onMeta(['actors', 'run', '--once']);
    expect(elsewhere, elsewhere.stderr).toMatchObject({
      code: 0,
      stdout: 'done — docs: runs in another working directory\n',
    });
    expect(elsewhere.stderr).toContain(
      'note: not running docs here: team "docs" works in another working directory of the federation',
    );
    const refused = await onMeta(['actors', 'run', '--once', '--team', 'docs']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^fed: team "docs" works in another working directory of the federation: .* — run this there/,
    );
    // So are the other commands that write or run in the team's workspace (a pause only changes state: it works here).
    for (const args of [
      ['launch', '--team', 'docs'],
      ['team', 'retry', 'docs'],
    ]) {
      const there = await onMeta(args);
      expect(there.code, args.join(' ')).toBe(2);
      expect(there.stderr).toContain(
        `team "docs" works in another working directory of the federation: ${join(teamRoot, '.fed', 'teams', 'docs')} on host `,
      );
    }

    const once = await onTeam(['actors', 'run', '--once']);
    expect(once, once.stderr).toMatchObject({
      code: 0,
      stdout: 'docs: MISSION_ASSIGNED (still preparing)\ndone — docs: preparing\n',
    });

    // Long-running: the actor watches the JetStream inbox and applies a signal sent from the other directory.
    const child = spawn(process.execPath, [FED_BIN, '--root', teamRoot, 'actors', 'run'], {
      env: { ...process.env, ...env, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onTestFinished(() => void child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    expect((await onMeta(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'pause'])).code).toBe(
      0,
    );
    await waitFor(
      () => out.includes('docs: preparing → paused'),
      60_000,
      `the running actor to apply the signal; output so far:\n${out}`,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const listed = JSON.parse((await onMeta(['signal', 'list', '--team', 'docs', '--json'])).stdout) as {
      signals: Array<{ message: { acknowledged: boolean } }>;
    };
    expect(listed.signals.map((s) => s.message.acknowledged)).toEqual([true, true]);
  });

  it('fed chat bridge on the meta machine answers status, send, monitor and pause for a team in another working directory', async () => {
    const { name, onMeta, onTeam, metaRoot } = await twoMachines(server().url);
    const say = (root: string, text: string) => new FileChatChannel(root, { author: 'alice' }).post(text);
    const replies = (root: string) =>
      new FileChatChannel(root)
        .poll('1970-01-01T00:00:00.000Z')
        .then((poll) => poll.messages.filter((m) => m.author === name).map((m) => m.text));
    // The bridge starts from now: messages before its first poll are history.
    expect((await onMeta(['chat', 'bridge', '--file', '--once'])).code).toBe(0);
    await say(metaRoot, `@${name} status docs`);
    await say(metaRoot, `@${name} send docs directive write the guide`);
    await say(metaRoot, `@${name} monitor`);
    const bridged = await onMeta(['chat', 'bridge', '--file', '--once']);
    expect(bridged, bridged.stderr).toMatchObject({ code: 0 });
    const answers = await replies(metaRoot);
    expect(answers).toEqual([
      expect.stringMatching(
        new RegExp(`^\\[${name}\\] docs \\(deliverable, active\\).*\\nlifecycle: deliverable, preparing`, 's'),
      ),
      expect.stringMatching(new RegExp(`^\\[${name}\\] sent directive "write the guide" to docs`)),
      expect.stringMatching(
        new RegExp(`^\\[${name}\\] monitor .*: 1 team, 1 healthy, 0 unhealthy; 1 unacknowledged signal`),
      ),
    ]);
    // The signal reached the team's working directory through JetStream.
    const pending = JSON.parse((await onTeam(['signal', 'list', '--team', 'docs', '--json'])).stdout) as {
      signals: Array<{ message: { subject: string } }>;
    };
    expect(pending.signals.map((s) => s.message.subject)).toEqual(['write the guide']);

    await say(metaRoot, `@${name} pause docs`);
    expect((await onMeta(['chat', 'bridge', '--file', '--once'])).code).toBe(0);
    expect((await replies(metaRoot)).at(-1)).toBe(`[${name}] docs: active → paused`);
    expect((await onMeta(['team', 'show', 'docs'])).stdout).toMatch(/status:\s+paused/);
  });

  it('meta pauses, resumes and fails a team of another working directory; the retry is made where the team is; both see one history in fed log', async () => {
    const { onMeta, onTeam } = await twoMachines(server().url);
    const ok = async (run: Promise<{ code: number | null; stdout: string; stderr: string }>) => {
      const result = await run;
      expect(result, result.stderr).toMatchObject({ code: 0 });
      return result.stdout;
    };
    await ok(onMeta(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Document the API']));
    await ok(onTeam(['actors', 'run', '--once']));
    expect(await ok(onMeta(['team', 'pause', 'docs']))).toContain('active → paused');
    expect(await ok(onMeta(['team', 'resume', 'docs']))).toContain('paused → active');
    // An agent's fed event reaches the lifecycle from any working directory.
    await ok(onMeta(['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"the scan crashed"}']));

    // The ended run's deliverable is kept beside it, in the workspace: the retry is made where that is.
    const elsewhere = await onMeta(['team', 'retry', 'docs']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('team "docs" works in another working directory of the federation');
    const retried = JSON.parse(await ok(onTeam(['team', 'retry', 'docs', '--json']))) as {
      run: number;
      keptAs: string[];
      mission: { subject: string };
    };
    expect(retried).toMatchObject({ run: 2, mission: { subject: 'Document the API' } });
    expect(retried.keptAs[0]).toMatch(/KV fed_ops\d+_lifecycle\/run\.docs\.1$/);
    await ok(onTeam(['actors', 'run', '--once']));

    for (const machine of [onMeta, onTeam]) {
      const log = JSON.parse(await ok(machine(['log', '--team', 'docs', '--json']))) as Array<{
        kind: string;
        text: string;
      }>;
      expect(log.map((entry) => entry.kind)).toEqual(
        expect.arrayContaining(['onboarded', 'status', 'retried', 'transition']),
      );
      expect(log.filter((entry) => entry.kind === 'status').map((entry) => entry.text)).toEqual([
        'status active → paused',
        'status paused → active',
      ]);
      // The failed run's journal (kept as run 1) and the new run's are both there, in order.
      const failed = log.findIndex((entry) => entry.kind === 'transition' && entry.text.includes('FAIL'));
      const retry = log.findIndex((entry) => entry.kind === 'retried');
      expect(failed).toBeGreaterThan(-1);
      expect(retry).toBeGreaterThan(failed);
      expect(log.slice(retry).some((entry) => entry.text.includes('MISSION_ASSIGNED'))).toBe(true);
    }
  });
});

describe.skipIf(skipWithoutNatsServer('fed config show and fed init with credentials in FED_NATS_URL'))(
  'fed config show and fed init with credentials in FED_NATS_URL',
  () => {
    const server = useNatsServer({ auth: { user: 'fed', password: 's3cret-pw' } });

    it('connect with them, and never print the password', async () => {
      const root = tempDir();
      const env = { FED_NATS_URL: server().url };
      const redacted = server().url.replace('s3cret-pw', '***');
      expect(redacted).toMatch(/^nats:\/\/fed:\*\*\*@127\.0\.0\.1:\d+$/);

      // An init the server refuses leaves nothing behind: run again, it makes the federation it is asked for.
      const refused = await runFed(['--root', root, 'init', '--name', 'first-try'], {
        env: { FED_NATS_URL: server().url.replace('s3cret-pw', 'wrong-pw') },
      });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain("refused fed's credentials (Authorization Violation)");
      expect(readdirSync(root)).toEqual([]);
      // A folder that was there before the init stays, empty as it was; one the init made goes.
      mkdirSync(join(root, '.fed'));
      const again = await runFed(['--root', join(root, 'new'), 'init'], {
        env: { FED_NATS_URL: server().url.replace('s3cret-pw', 'wrong-pw') },
      });
      expect(again.code, again.stderr).toBe(2);
      const inRoot = await runFed(['--root', root, 'init'], {
        env: { FED_NATS_URL: server().url.replace('s3cret-pw', 'wrong-pw') },
      });
      expect(inRoot.code, inRoot.stderr).toBe(2);
      expect(readdirSync(root)).toEqual(['.fed']);
      expect(readdirSync(join(root, '.fed'))).toEqual([]);
      rmdirSync(join(root, '.fed'));
      // The password reaches the server, and the locations fed prints name the server without it.
      const init = await runFed(['--root', root, 'init', '--name', 'secretive'], { env });
      expect(init, init.stderr).toMatchObject({ code: 0 });
      expect(init.stdout).toContain(`created federation "secretive" at ${redacted} KV fed_secretive_registry/registry`);
      const sent = await runFed(
        ['--root', root, 'signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'hello'],
        { env },
      );
      expect(sent, sent.stderr).toMatchObject({ code: 0, stdout: `${redacted} stream FED_secretive_SIGNALS seq 1\n` });
      const wrong = await runFed(['--root', root, 'doctor'], {
        env: { FED_NATS_URL: server().url.replace('s3cret-pw', 'wrong-pw') },
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stdout).toContain(
        `backend: the NATS server at ${redacted} refused fed's credentials (Authorization Violation)\n  fix: check the user and password in FED_NATS_URL; give credentials this server accepts (and not expired)\n`,
      );
      for (const result of [init, sent, wrong]) expect(result.stdout + result.stderr).not.toMatch(/s3cret-pw|wrong-pw/);

      // Credentials by reference are shown as the reference.
      writeFileSync(
        join(root, 'federate.config.json'),
        JSON.stringify({
          federationName: 'secretive',
          backend: { type: 'jetstream', credentials: { env: 'FED_NATS_CREDS' } },
        }),
      );
      const shown = await runFed(['--root', root, 'config', 'show', '--json'], { env });
      expect(shown, shown.stderr).toMatchObject({ code: 0 });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        backend: { type: 'jetstream', servers: [redacted], credentials: { env: 'FED_NATS_CREDS' } },
      });
      const text = await runFed(['--root', root, 'config', 'show'], { env });
      expect(text.stdout).toContain(`"${redacted}"`);
      for (const result of [shown, text]) expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    });
  },
);

describe('fed doctor when the NATS server cannot be reached', () => {
  it('reports the server as the problem, with how to start one, not a broken registry', async () => {
    const root = tempDir();
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ federationName: 'away', backend: { type: 'jetstream' } }),
    );
    const url = `nats://127.0.0.1:${await freePort()}`;
    const result = await runFed(['--root', root, 'doctor', '--json'], { env: { FED_NATS_URL: url } });
    expect(result.code).toBe(1);
    const report = doctorJson(result);
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'backend',
        problem: expect.stringContaining(
          `cannot reach the NATS server at ${url} (connection refused); start one with JetStream enabled`,
        ),
      }),
    ]);
  });
});
