import { describe, expect, it, vi } from 'vitest';

/** Every node:fs call on a path, by name and path (see actors-run-fs-calls.test.ts). */
const calls: { op: string; path: string }[] = [];
let counting = false;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped: Record<string, unknown> = { ...real };
  for (const [name, value] of Object.entries(real)) {
    if (typeof value !== 'function' || /^[A-Z]/.test(name)) continue;
    const fn = value as (...args: unknown[]) => unknown;
    wrapped[name] = Object.assign((...args: unknown[]) => {
      if (counting) calls.push({ op: name, path: String(args[0]) });
      return fn(...args);
    }, fn);
  }
  return { ...wrapped, default: wrapped };
});

const { writeFileSync } = await import('node:fs');
const { join } = await import('node:path');
const { initFederation, onboardTeam, runActors, sendSignal } = await import('../../src/index.js');
const { openFederation } = await import('../../src/engine/context.js');
const { runCli } = await import('../../src/cli/program.js');
const { workspacePaths } = await import('../../src/core/layout.js');
const { tempDir } = await import('../helpers/temp-dir.js');

const TEAMS = 6;

/**
 * What one team costs a monitoring cycle, measured on this scenario (teams with a lifecycle and signals,
 * never launched): its inbox and outbox listed once each (the stuck-signal scan takes its candidates from
 * the census's listing), one file opened (its lifecycle), and the launch files it does not have
 * (agent.json, runs.jsonl, agent.log) only asked after, never opened. Before: three listings and five
 * opens, four of them failing. At most 11 calls on its paths in all.
 */
const PER_TEAM = { readdirSync: 2, openSync: 1, total: 11 };

describe('fed monitor --json', () => {
  it(`lists each box once and opens one file per team (${TEAMS} teams)`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const fed = openFederation(root);
    const locations: string[] = [];
    for (let t = 0; t < TEAMS; t++) {
      const entry = await onboardTeam(fed, { domain: `team-${t}` }, { durable: false });
      locations.push(entry.location);
      await sendSignal(fed, { to: entry.domainId, type: 'directive', subject: 'Mission' }, { durable: false });
      await sendSignal(fed, { to: entry.domainId, type: 'question', subject: 'Scope?' }, { durable: false });
    }
    await runActors(fed, { once: true, durable: false });
    writeFileSync(join(root, 'federate.config.json'), '{}');
    const out = { stdout: '', stderr: '' };
    const io = {
      stdout: (text: string) => void (out.stdout += text),
      stderr: (text: string) => void (out.stderr += text),
      env: { FED_TELEMETRY_ENABLED: 'false' },
      cwd: root,
      isTTY: false,
    };

    calls.length = 0;
    counting = true;
    const code = await runCli(['monitor', '--json', '--root', root], io);
    counting = false;

    expect({ code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(out.stdout) as { teams: unknown[] }).teams).toHaveLength(TEAMS);
    for (const location of locations) {
      const own = calls.filter((c) => c.path.startsWith(`${location}/`) || c.path === location);
      const listed = own.map((c) => `${c.op} ${c.path}`).join('\n');
      const count = (op: string) => own.filter((c) => c.op === op).length;
      expect(count('readdirSync'), listed).toBe(PER_TEAM.readdirSync);
      expect(
        own.filter((c) => c.op === 'readdirSync').map((c) => c.path),
        listed,
      ).toEqual(expect.arrayContaining([workspacePaths(location).inbox, workspacePaths(location).outbox]));
      expect(count('openSync'), listed).toBe(PER_TEAM.openSync);
      expect(own.length, listed).toBeLessThanOrEqual(PER_TEAM.total);
    }
  });
});
