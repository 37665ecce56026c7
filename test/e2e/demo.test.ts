import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed demo (npm run demo)', () => {
  it('runs a whole federation end to end with the built-in agent and removes its temp dir', async () => {
    const result = await runFed(['demo'], { timeoutMs: 120_000 });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    for (const expected of [
      '$ fed launch --team docs',
      'preparing → scanning  (PLAN_READY)',
      'aggregating → complete  (DOCUMENT_WRITTEN)',
      '$ fed monitor',
      'teams: 1, healthy 1, unhealthy 0',
      '.fed/teams/docs/deliverable.md: ok —',
      '# Architecture of',
      'deliverable ready: deliverable.md',
    ]) {
      expect(result.stdout).toContain(expected);
    }
    const dir = /^# fed demo in (.+)$/m.exec(result.stdout)?.[1];
    expect(dir).toBeTruthy();
    expect(existsSync(dir!)).toBe(false);
  }, 150_000);

  it('--dir keeps the federation, with the deliverable and the learning log', async () => {
    const dir = join(tempDir(), 'demo');
    const result = await runFed(['demo', '--dir', dir], { timeoutMs: 120_000 });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const workspace = join(dir, '.fed', 'teams', 'docs');
    expect(readFileSync(join(workspace, 'deliverable.md'), 'utf8')).toMatch(/^# /);
    expect(readFileSync(join(workspace, '.fed', 'learning-log.jsonl'), 'utf8').trim().split('\n').length).toBeGreaterThan(3);
  }, 150_000);
});
