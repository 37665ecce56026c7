import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { onboardTeam, openFederation, runDoctor } from 'fed';
import { bubblewrapMissing } from '../helpers/bubblewrap.js';
import { federationWithMission } from '../helpers/launch-federation.js';

/** `fed doctor`'s notes about the agents that run without the sandbox, with `env` (issue 48). */
async function notes(root: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const report = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false', ...env } }));
  return report.notes.filter((note) => note.includes('without the sandbox'));
}

describe('fed doctor says which agents run unsandboxed, as the user, with the user home', () => {
  it('a team whose sandbox is off (agent.sandbox, or its own agent.teams.<id>.sandbox), or every team when bubblewrap is missing', async () => {
    const { root } = await federationWithMission({ mission: false });
    const env = { HOME: '/home/ann', PATH: '/no/such/bin' };
    expect(await notes(root, env)).toEqual([
      expect.stringMatching(
        /^the agents of docs run without the sandbox: as you \(uid \d+.*\), with your home \(\/home\/ann\), your credentials and this machine's network — they can change anything you can \(bubblewrap \(bwrap\) is not installed/,
      ),
    ]);
    await onboardTeam(openFederation(root), { domain: 'api', archetypeId: 'coding' });
    // With bubblewrap, a coding team is sandboxed like the others: only a team whose sandbox is off is named.
    const sandboxed = { HOME: '/home/ann', PATH: process.env.PATH };
    if (bubblewrapMissing === undefined) expect(await notes(root, sandboxed)).toEqual([]);
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ agent: { teams: { api: { sandbox: false } } } }),
    );
    if (bubblewrapMissing === undefined)
      expect(await notes(root, sandboxed)).toEqual([
        expect.stringContaining('the agents of api run without the sandbox: as you (uid '),
      ]);
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ agent: { sandbox: false } }));
    expect(await notes(root, env)).toEqual([
      expect.stringContaining('the agents of api, docs run without the sandbox: as you (uid '),
    ]);
    expect((await notes(root, env))[0]).toContain('(agent.sandbox is false); see docs/threat-model.md');
  });

  it('a team of a custom archetype (no lifecycle, no agent fed launches) is left out, and doctor still runs', async () => {
    const { root } = await federationWithMission({ mission: false });
    await onboardTeam(openFederation(root), { domain: 'delta', archetypeId: 'nope' });
    const env = { HOME: '/home/ann', PATH: '/no/such/bin' };
    expect(await notes(root, env)).toEqual([expect.stringContaining('the agents of docs run without the sandbox')]);
  });

  it('a team whose sandbox allows unix-sockets is named, with what that gives up', async () => {
    const { root } = await federationWithMission({ mission: false });
    await onboardTeam(openFederation(root), { domain: 'db', archetypeId: 'coding' });
    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ agent: { teams: { db: { sandbox: { allow: ['unix-sockets'] } } } } }),
    );
    const report = await runDoctor(
      openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false', HOME: '/home/ann' } }),
    );
    expect(report.notes.filter((note) => note.includes('allow unix-sockets'))).toEqual([
      "the sandboxes of db allow unix-sockets (agent.teams.<team>.sandbox.allow): their agents reach every host Unix socket they can see, Docker's among them — root on this machine; see docs/threat-model.md",
    ]);
  });
});
