import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation, runDoctor } from 'fed';
import { federationWithMission } from '../helpers/launch-federation.js';

/** `fed doctor`'s notes about the agents that run without the sandbox, with `env` (issue 48). */
async function notes(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const report = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false', ...env } }));
  return report.notes.filter((note) => note.includes('without the sandbox'));
}

describe('fed doctor says which agents run unsandboxed, as the user, with the user home', () => {
  it('a coding team always; a deliverable team when agent.sandbox is false or bubblewrap is missing', async () => {
    const { root } = await federationWithMission({ mission: false });
    const env = { HOME: '/home/ann', PATH: '/no/such/bin' };
    expect(await notes(root, env)).toEqual([
      expect.stringMatching(
        /^the agents of docs run without the sandbox: as you \(uid \d+.*\), with your home \(\/home\/ann\) — they can change anything you can \(bubblewrap \(bwrap\) is not installed/,
      ),
    ]);
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { sandbox: false } }));
    await onboardTeam(openFederation(root), { domain: 'api', archetypeId: 'coding' });
    expect(await notes(root, env)).toEqual([
      expect.stringContaining('the agents of api, docs run without the sandbox: as you (uid '),
    ]);
    expect((await notes(root, env))[0]).toContain(
      '(coding teams edit their checkout, always unsandboxed; agent.sandbox is false); see docs/threat-model.md',
    );
  });

  it('a team of a custom archetype (no lifecycle, no agent fed launches) is left out, and doctor still runs', async () => {
    const { root } = await federationWithMission({ mission: false });
    await onboardTeam(openFederation(root), { domain: 'delta', archetypeId: 'nope' });
    const env = { HOME: '/home/ann', PATH: '/no/such/bin' };
    expect(await notes(root, env)).toEqual([expect.stringContaining('the agents of docs run without the sandbox')]);
  });
});
