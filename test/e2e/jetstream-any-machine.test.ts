import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { typescriptProject } from '../helpers/fixture-repo.js';
import { skipWithoutNatsServer, startNatsServer, type NatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const SUITE = 'fed team and fed log from any machine of a JetStream federation';

function checkout(): string {
  const dir = typescriptProject(tempDir('fed-machine-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'fed@test');
  git('config', 'user.name', 'fed test');
  git('add', '-A');
  git('commit', '-qm', 'project');
  return dir;
}

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  let server: NatsServer & { dispose(): Promise<void> };
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('meta pauses and resumes a team on another machine and sees its events; the retry is made where the team lives; both see one history in fed log', async () => {
    const env = { FED_NATS_URL: server.url, FED_TELEMETRY_ENABLED: 'false' };
    const metaMachine = checkout();
    const teamMachine = checkout();
    const onMeta = (args: string[]) => runFed(['--root', metaMachine, ...args], { env, timeoutMs: 90_000 });
    const onTeam = (args: string[]) => runFed(['--root', teamMachine, ...args], { env, timeoutMs: 90_000 });
    const ok = async (run: Promise<{ code: number | null; stdout: string; stderr: string }>) => {
      const result = await run;
      expect(result, result.stderr).toMatchObject({ code: 0 });
      return result.stdout;
    };

    await ok(onMeta(['init', '--name', 'runs']));
    await ok(onTeam(['init', '--name', 'runs']));
    await ok(onTeam(['team', 'onboard', 'docs']));
    await ok(onMeta(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'Document the API']));
    await ok(onTeam(['actors', 'run', '--once']));

    expect(await ok(onMeta(['team', 'pause', 'docs']))).toContain('active → paused');
    expect(await ok(onMeta(['team', 'resume', 'docs']))).toContain('paused → active');
    // An agent's fed event reaches the lifecycle from any machine.
    await ok(onMeta(['event', '--team', 'docs', 'FAIL', '--data', '{"reason":"the scan crashed"}']));

    // The ended run's deliverable is kept beside it, in the workspace: the retry is made on the team's machine.
    const elsewhere = await onMeta(['team', 'retry', 'docs']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('team "docs" lives on another machine');
    expect(elsewhere.stderr).toContain(`run fed team retry docs there`);
    const retried = JSON.parse(await ok(onTeam(['team', 'retry', 'docs', '--json']))) as { run: number; keptAs: string[]; mission: { subject: string } };
    expect(retried).toMatchObject({ run: 2, mission: { subject: 'Document the API' } });
    expect(retried.keptAs[0]).toMatch(/KV fed_runs_lifecycle\/run\.docs\.1$/);
    await ok(onTeam(['actors', 'run', '--once']));

    for (const machine of [onMeta, onTeam]) {
      const log = JSON.parse(await ok(machine(['log', '--team', 'docs', '--json']))) as Array<{ kind: string; text: string }>;
      const kinds = log.map((entry) => entry.kind);
      expect(kinds).toEqual(expect.arrayContaining(['onboarded', 'status', 'retried', 'transition']));
      expect(log.filter((entry) => entry.kind === 'status').map((entry) => entry.text)).toEqual(['status active → paused', 'status paused → active']);
      // The failed run's journal (kept as run 1) and the new run's are both there, in order.
      const failed = log.findIndex((entry) => entry.kind === 'transition' && entry.text.includes('FAIL'));
      const retry = log.findIndex((entry) => entry.kind === 'retried');
      expect(failed).toBeGreaterThan(-1);
      expect(retry).toBeGreaterThan(failed);
      expect(log.slice(retry).some((entry) => entry.text.includes('MISSION_ASSIGNED'))).toBe(true);
    }
  }, 240_000);
});
