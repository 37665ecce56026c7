import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { initFederation, onboardTeam, sendSignal } = await import('fed');
const { openFederation } = await import('fed');
const { counted, onPaths } = await import('../helpers/fs-calls.js');
const { fedInProcess } = await import('../helpers/fed-in-process.js');
const { tempDir } = await import('../helpers/temp-dir.js');

/**
 * Calls on a path during the command, measured on this scenario: 165 (232 with the reads, writes and
 * closes of open descriptors) when the workspace check ran whole on every read and write of the file
 * adapter — 5 times, 79 calls; 83 once it runs once per team per Federation context (4 calls) and each
 * write re-checks only its folder (one realpath). The bound was half the 168 measured before the Federation
 * context: a check, a load, a listing or a lock repeated again on this path fails here. 87 since each
 * registry read also looks for the teams' activity files beside it (two checks: team-activity-file.ts),
 * and the bound moved with it.
 */
const BOUND = 90;

describe('fed actors run --once over a mission and a pause', () => {
  it(`makes at most ${BOUND} filesystem calls`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    for (const subject of ['the mission', 'pause'])
      await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject }, { durable: false });

    const {
      value: { code, stdout, stderr },
      calls,
    } = await counted(() => fedInProcess(['actors', 'run', '--once'], root));

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/PAUSE/);
    // Calls on a path (see onPaths): what a check, a load, a listing or a lock costs.
    const pathCalls = onPaths(calls);
    const listed = pathCalls.map((c) => `${c.op} ${c.path}`).join('\n');
    expect(pathCalls.length, listed).toBeLessThanOrEqual(BOUND);
  });
});
