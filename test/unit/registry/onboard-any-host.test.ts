import { describe, expect, it } from 'vitest';
import { InvalidInputError, onboardTeam, openFederation } from 'fed';
import { federationWithMission } from '../../helpers/launch-federation.js';

describe('fed team onboard --any-host', () => {
  it('records the team unplaced (registry host "*"); on files that is this one host', async () => {
    const { root } = await federationWithMission({ mission: false });
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const entry = await onboardTeam(fed, { domain: 'api', anyHost: true });
    expect(entry.host).toBe('*');
    expect((await fed.backend.registry.read()).teams.find((t) => t.domainId === 'api')?.host).toBe('*');
  });

  it('refuses a worktree team, whose branch lives in one clone, and registers nothing', async () => {
    const { root } = await federationWithMission({ mission: false });
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const onboarding = onboardTeam(fed, { domain: 'web', anyHost: true, placementType: 'worktree' });
    await expect(onboarding).rejects.toBeInstanceOf(InvalidInputError);
    await expect(onboarding).rejects.toThrow(/--any-host: a worktree team cannot be unplaced/);
    expect((await fed.backend.registry.read()).teams.map((t) => t.domainId)).toEqual(['docs']);
  });
});
