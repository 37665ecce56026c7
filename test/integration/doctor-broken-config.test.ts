import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { type DoctorReport, federationPaths, runDoctorAt } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A file federation with teams docs and gone (its workspace deleted) and a registry lock whose holder is
 * gone — a finding --fix would repair — whose config is then broken with `config`.
 */
async function brokenFederation(config: string): Promise<{ root: string; file: string; lock: string }> {
  const root = tempDir();
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of ['docs', 'gone']) await onboardTeam(openFederation(root), { domain }, { durable: false });
  rmSync(join(root, '.fed', 'teams', 'gone'), { recursive: true });
  const { registryLock: lock, config: file } = federationPaths(root);
  const pid = spawnSync(process.execPath, ['-e', '']).pid!;
  writeFileSync(lock, JSON.stringify({ pid, host: hostname(), token: 'dead', acquiredAt: new Date().toISOString() }));
  writeFileSync(file, config);
  return { root, file, lock };
}

const report = (text: string) => JSON.parse(text) as DoctorReport;

describe('fed doctor with a config that does not load', () => {
  it.each([
    ['a value of the wrong type', '{"agentCommand": 5}', '  - agentCommand: expected a non-empty string, got number 5'],
    ['invalid JSON', '{bad', "  - line 1, column 2: not valid JSON (Expected property name or '}')"],
  ])(
    '%s: one finding with the loader’s message, the file federation checked all the same, --fix repairs nothing (exit 1)',
    async (_, config, problem) => {
      const { root, file, lock } = await brokenFederation(config);

      const json = await runFed(['--root', root, 'doctor', '--json']);
      expect(json.code, json.stderr).toBe(1);
      const found = report(json.stdout);
      expect(found.findings.map((f) => [f.check, f.team, f.path, f.fixable])).toEqual([
        ['config', undefined, file, false],
        ['workspace', 'gone', expect.any(String), false],
        ['stale-lock', undefined, lock, false],
      ]);
      expect(found.findings[0]).toMatchObject({
        problem: `${file} is invalid:\n${problem}`,
        fix: 'correct what it names (fed config show checks it again), then run fed doctor again; fed never rewrites the config',
      });
      expect(found.notes).toEqual([
        expect.stringMatching(
          /^the config does not load: checked as a file federation with the default settings .*fed doctor --fix repairs nothing until the config loads$/,
        ),
      ]);

      const text = await runFed(['--root', root, 'doctor']);
      expect(text.code, text.stderr).toBe(1);
      expect(text.stdout.startsWith(`config: ${file} is invalid:\n${problem}\n  fix: correct what it names`)).toBe(
        true,
      );
      expect(text.stdout).toMatch(/\n3 problems\n$/);

      const fix = await runFed(['--root', root, 'doctor', '--fix']);
      expect(fix.code, fix.stderr).toBe(1);
      expect(fix.stdout).toMatch(/\n3 problems, 0 fixed\n$/);
      expect(existsSync(lock)).toBe(true);
    },
  );

  it.each([
    ['the config names another backend', '{"agentCommand": 5, "backend": {"type": "jetstream"}}', {}],
    ['the environment selects another backend', '{bad', { FED_NATS_URL: 'nats://127.0.0.1:1' }],
  ])(
    '%s: nothing is read through a guessed backend, what lies under the root is checked (exit 1)',
    async (_, config, env) => {
      const { root, file, lock } = await brokenFederation(config);
      const result = await runFed(['--root', root, 'doctor', '--json'], { env });
      expect(result.code, result.stderr).toBe(1);
      const found = report(result.stdout);
      // The registry is not read: the team whose workspace is gone is not looked at.
      expect(found.findings.map((f) => [f.check, f.path, f.fixable])).toEqual([
        ['config', file, false],
        ['stale-lock', lock, false],
      ]);
      expect(found.notes).toEqual([
        expect.stringContaining('the config does not load, and which backend it selects is not known'),
      ]);
    },
  );

  it('runDoctorAt of a federation whose config loads is runDoctor of it opened', async () => {
    const { root, lock } = await brokenFederation('{}');
    const found = await runDoctorAt(root, { env: { FED_TELEMETRY_ENABLED: 'false' }, fix: true });
    expect(found.findings.map((f) => [f.check, f.fixed])).toEqual([
      ['workspace', false],
      ['stale-lock', true],
    ]);
    expect(existsSync(lock)).toBe(false);
  });
});
