import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workspacePaths } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { maxSharedLineFraction } from '../helpers/shared-lines.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed demo (npm run demo)', () => {
  it('plans three teams on a sample monorepo, runs them in parallel with the built-in agent, shows the report, removes its temp dir', async () => {
    const result = await runFed(['demo'], { timeoutMs: 120_000 });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    for (const expected of [
      '$ fed plan --teams 3 --apply',
      'signals-docs   packages/signals',
      '$ fed run',
      'launch-docs: running, scanning (PLAN_READY)',
      'registry-docs: complete (complete)',
      'signals-docs: complete (complete)',
      'ran 3 teams',
      '3 complete, 0 failed, 0 paused',
      '$ fed monitor',
      'teams: 3, healthy 3, unhealthy 0',
      'federation-report.md: ok —',
      '# Federation report: demo-fed',
      'meta -->|"1 directive"| t1',
      '$ fed log --team launch-docs',
      'sent report to meta: deliverable ready: deliverable.md',
    ]) {
      expect(result.stdout).toContain(expected);
    }
    const dir = /^# fed demo in (.+)$/m.exec(result.stdout)?.[1];
    expect(dir).toBeTruthy();
    expect(existsSync(dir!)).toBe(false);
  }, 150_000);

  it('--dir keeps the federation, with the report, every deliverable and the learning logs', async () => {
    const dir = join(tempDir(), 'demo');
    const result = await runFed(['demo', '--dir', dir], { timeoutMs: 120_000 });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, 'federation-report.md'), 'utf8')).toMatch(/^# Federation report: demo-fed\n/);
    const documents: string[] = [];
    for (const team of ['launch-docs', 'registry-docs', 'signals-docs']) {
      const workspace = join(dir, '.fed', 'teams', team);
      documents.push(readFileSync(join(workspace, 'deliverable.md'), 'utf8'));
      expect(documents.at(-1)).toMatch(/^# /);
      expect(
        readFileSync(join(workspace, '.fed', 'learning-log.jsonl'), 'utf8')
          .trim()
          .split('\n').length,
      ).toBeGreaterThan(3);
      // Nothing from Node or V8 in the agent's log on this Node line: no flag it lacks, no warning.
      expect(readFileSync(workspacePaths(workspace).agentLog, 'utf8')).not.toMatch(/unrecognized flag|^\(node:\d+\) /m);
    }
    // Each team writes about its own package: the three documents share almost no lines (about 4 %).
    expect(maxSharedLineFraction(documents)).toBeLessThan(0.15);
  }, 150_000);
});
