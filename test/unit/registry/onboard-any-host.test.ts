import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError, onboardTeam, openFederation } from 'fed';
import { codebaseRemote, gitIn } from '../../helpers/git-federation.js';
import { federationWithMission } from '../../helpers/launch-federation.js';

describe('fed team onboard --any-host', () => {
  it('records the team unplaced (registry host "*"); on files that is this one host', async () => {
    const { root } = await federationWithMission({ mission: false });
    const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const entry = await onboardTeam(fed, { domain: 'api', anyHost: true });
    expect(entry.host).toBe('*');
    expect((await fed.backend.registry.read()).teams.find((t) => t.domainId === 'api')?.host).toBe('*');
  });

  it('refuses a worktree team unless serve.pushTeamBranches carries its commits to the remote, and registers nothing', async () => {
    const { root } = await federationWithMission({ mission: false });
    const fed = () => openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
    const onboarding = () => onboardTeam(fed(), { domain: 'web', anyHost: true, placementType: 'worktree' });
    await expect(onboarding()).rejects.toBeInstanceOf(InvalidInputError);
    await expect(onboarding()).rejects.toThrow(
      /--any-host: an unplaced worktree team needs "serve": \{ "pushTeamBranches": true \}/,
    );
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as object;
    writeFileSync(file, JSON.stringify({ ...config, serve: { pushTeamBranches: true } }));
    // Nor without a remote to push to.
    await expect(onboarding()).rejects.toThrow(/the codebase's git remote, and .* has none; add it/);
    expect((await fed().backend.registry.read()).teams.map((t) => t.domainId)).toEqual(['docs']);

    gitIn(root)('remote', 'add', 'origin', codebaseRemote());
    const entry = await onboarding();
    expect(entry).toMatchObject({ host: '*', placementType: 'worktree' });
    expect(existsSync(join(entry.location, '.git'))).toBe(true);
  });
});
