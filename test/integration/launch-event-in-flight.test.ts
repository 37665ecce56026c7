import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { launchTeam, openFederation } from 'fed';
import { acquireLock, releaseLock, workspacePaths } from 'fed/testing';
import { isAlive, waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

const SANDBOX_SUITE = 'the event-in-flight launch test (need bwrap)';

describe('a launch stopped while its agent has an event in flight', () => {
  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'judges and records the run on the lifecycle with that event applied (needs bwrap: the broker of a sandboxed agent)',
    async () => {
      const { root, config } = await federationWithMission();
      const workspace = join(root, '.fed', 'teams', 'docs');
      const fed = openFederation(root);
      const launched = launchTeam(fed, 'docs', {
        config,
        agent: fakeAgent('event-then-hang'),
        // Long enough for the test to see the agent start and let it send its event, on a loaded machine.
        timeoutSeconds: 10,
        pollMs: 50,
      });
      // The mission is applied before the agent starts; then the test holds the lifecycle's lock, so the
      // agent's event waits in the launcher while the timeout stops the agent.
      await waitFor(() => existsSync(join(workspace, 'started')), 30_000);
      const lock = await acquireLock(workspacePaths(workspace).stateLock, { staleMs: Number.POSITIVE_INFINITY });
      writeFileSync(join(workspace, 'go'), 'yes');
      try {
        await waitFor(() => existsSync(join(workspace, 'sent')), 30_000);
        const { pid } = JSON.parse(readFileSync(workspacePaths(workspace).currentRun, 'utf8')) as { pid: number };
        await waitFor(() => !isAlive(pid), 30_000, 'the timeout to stop the agent');
        // Time for a launcher that does not wait for the event to read the lifecycle without it (it reads
        // at once); this one waits for the event, which waits for the lock.
        const early = await Promise.race([launched.then(() => 'ended'), sleep(1_000).then(() => 'waiting')]);
        expect(early).toBe('waiting');
      } finally {
        releaseLock(lock);
      }
      const result = await launched;
      // A timeout pauses the team: after the event, which the run is judged by (it made progress).
      expect(result).toMatchObject({ outcome: 'paused', state: 'paused' });
      expect(result.lastRun).toMatchObject({ outcome: 'timeout', progressed: true, stateAfter: 'paused' });
      const journal = await fed.backend.lifecycles.journal(await fed.team('docs'));
      expect(journal.map(({ event, from, to }) => ({ event, from, to }))).toEqual([
        { event: 'MISSION_ASSIGNED', from: 'preparing', to: 'preparing' },
        { event: 'PLAN_READY', from: 'preparing', to: 'scanning' },
        { event: 'PAUSE', from: 'scanning', to: 'paused' },
      ]);
    },
  );
});
