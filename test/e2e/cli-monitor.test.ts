import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runActors, sendSignal } from 'fed';
import { workspacePaths } from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

async function federation(): Promise<(...args: string[]) => ReturnType<typeof runFed>> {
  const root = tempDir();
  const fed = (...args: string[]) => runFed(['--root', root, ...args]);
  await fed('init');
  await fed('team', 'onboard', 'docs');
  await fed('team', 'onboard', 'api', '--archetype', 'coding');
  return fed;
}

describe('fed monitor', () => {
  it('prints a table (no colours when not a TTY) and exits 0; --json is one object', async () => {
    const fed = await federation();
    const text = await fed('monitor');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^TEAM\s+ARCHETYPE/);
    expect(text.stdout).toContain('teams: 2, healthy 2, unhealthy 0');
    expect(text.stdout).not.toContain('\x1b[');
    const json = JSON.parse((await fed('monitor', '--json')).stdout) as { teams: { team: string }[]; totals: unknown };
    expect(json.teams.map((t) => t.team)).toEqual(['api', 'docs']);
    expect(json.totals).toEqual({ teams: 2, healthy: 2, unhealthy: 0, unacknowledged: 0 });
  });

  it("counts meta's outbox as fed signal list does when one second's same-subject directives to two teams collide in it", async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const open = () => openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    for (const domain of ['a', 'b']) await onboardTeam(open(), { domain }, { durable: false });
    // One second for both: the outbox copies are …-same-subject.json and …-same-subject-2.json, the inbox copies not suffixed.
    const second = new Date('2026-01-31T12:00:00.000Z');
    for (const to of ['a', 'b'])
      await sendSignal(
        open(),
        { to, type: 'directive', subject: 'Same subject' },
        { durable: false, now: () => second },
      );
    expect(readdirSync(workspacePaths(root).outbox).sort()).toEqual([
      '2026-01-31T120000Z-directive-same-subject-2.json',
      '2026-01-31T120000Z-directive-same-subject.json',
    ]);
    await runActors(open(), { once: true, durable: false });
    const fed = (...args: string[]) => runFed(['--root', root, ...args]);
    const listed = JSON.parse((await fed('signal', 'list', '--box', 'outbox', '--json')).stdout) as {
      signals: { delivery: { state: string } }[];
    };
    expect(listed.signals.map((s) => s.delivery.state)).toEqual(['acknowledged', 'acknowledged']);
    const monitor = JSON.parse((await fed('monitor', '--json')).stdout) as { meta: { outbox: unknown } };
    expect(monitor.meta.outbox).toEqual({ total: 2, unacknowledged: 0 });
  });

  it('--fail-on-unhealthy exits 1 when a team is unhealthy', async () => {
    const fed = await federation();
    expect((await fed('monitor', '--fail-on-unhealthy')).code).toBe(0);
    await fed('event', '--team', 'docs', 'FAIL', '--data', '{"reason":"broken"}');
    const result = await fed('monitor', '--fail-on-unhealthy');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^docs\s+deliverable\s+active\s+failed.*failed: broken$/m);
  });

  it.each([[['monitor', '--stale-after', '0']], [['monitor', '--watch', 'soon']]])(
    'bad input %j exits 2',
    async (args) => {
      const fed = await federation();
      const result = await fed(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/expected a number (of seconds )?> 0/);
    },
  );

  it('--watch appends a cycle per interval when not a TTY, until interrupted (exit 0)', async () => {
    const root = tempDir();
    await runFed(['--root', root, 'init']);
    const child = spawn(process.execPath, [FED_BIN, '--root', root, 'monitor', '--watch', '0.2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if ((out.match(/^# /gm) ?? []).length >= 2) {
          clearInterval(check);
          resolve();
        }
      }, 20);
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(out).not.toContain('\x1b[2J');
    expect((out.match(/no teams registered/g) ?? []).length).toBeGreaterThanOrEqual(2);
  });
});
