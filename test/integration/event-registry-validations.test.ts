import { afterEach, describe, expect, it, vi } from 'vitest';
import { applyLifecycleInputs, initFederation, onboardTeam, sendSignal } from '../../src/index.js';
import { openFederation } from '../../src/engine/context.js';
import { readRegistry } from '../../src/adapters/file/registry-file.js';
import { getTeam } from '../../src/core/find-team.js';
import { registrySchema } from '../../src/core/schema/registry.js';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

const TEAMS = 40;

afterEach(() => vi.restoreAllMocks());

/**
 * Validating the registry is what grows with the number of teams (~40 µs per entry before the code is
 * warm): a `fed event` that refreshes its team's lastActive reads the registry, then updates it under the
 * commit lock, and the text under the lock is the one it validated already. Before, it was validated
 * again there: twice per event.
 */
describe('fed event in a federation of many teams', () => {
  it('validates the registry once, its lastActive refresh included', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    // Onboarded an hour ago: the event's report to meta refreshes the team's lastActive (a registry write).
    const fed = openFederation(root, { now: () => new Date(Date.now() - 3_600_000) });
    for (let t = 0; t < TEAMS; t++) await onboardTeam(fed, { domain: `team-${t}` }, { durable: false });
    const team = getTeam(readRegistry(root), 'team-7');
    const mission = await sendSignal(
      fed,
      { to: team.domainId, type: 'directive', subject: 'Mission', body: 'Describe it' },
      { durable: false },
    );
    await applyLifecycleInputs(fed, team, [{ source: 'signal', signal: mission.message }], { durable: false });

    const validations = vi.spyOn(registrySchema, 'safeParse');
    const event = await fedInProcess(
      ['event', '--team', 'team-7', 'PLAN_READY', '--data', '{"sources":["src"]}'],
      root,
    );
    expect(event).toMatchObject({ code: 0, stderr: '' });
    expect(getTeam(readRegistry(root), 'team-7').lastActive).not.toBe(team.lastActive);
    expect(validations).toHaveBeenCalledTimes(1);
  });
});
