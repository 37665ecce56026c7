import { describe, expect, it } from 'vitest';
import { listSignals, openFederation, setTeamStatus } from 'fed';
import { reportSignalId } from 'fed/testing';
import { signalFederation } from '../helpers/signal-federation.js';

const fast = { durable: false };

/** The ids of the lifecycle reports meta received from `docs` after it was paused and resumed. */
async function reportIds(): Promise<string[]> {
  const fed = await signalFederation(['docs']);
  await setTeamStatus(openFederation(fed.root), 'docs', { type: 'PAUSE' }, fast);
  await setTeamStatus(openFederation(fed.root), 'docs', { type: 'RESUME' }, fast);
  return (await listSignals(openFederation(fed.root), { team: 'meta', type: 'report' })).signals.map(
    (s) => s.message.id,
  );
}

describe('lifecycle report ids', () => {
  it('differ between two federations whose teams have the same name and history', async () => {
    const [first, second] = [await reportIds(), await reportIds()];
    expect(first).toHaveLength(2);
    expect(second).toHaveLength(2);
    expect(new Set([...first, ...second]).size).toBe(4);
  });

  it('stay the same for the same team and event, so a re-sent report is recognised', () => {
    const team = { domainId: 'docs', location: '/srv/a/.fed/teams/docs', onboardedAt: '2026-03-01T09:00:00.000Z' };
    expect(reportSignalId(team, 'deliverable', 3)).toBe(reportSignalId({ ...team }, 'deliverable', 3));
    expect(reportSignalId(team, 'deliverable', 3)).not.toBe(
      reportSignalId({ ...team, onboardedAt: '2026-03-02T09:00:00.000Z' }, 'deliverable', 3),
    );
  });
});
