import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchTeam, onboardTeam, openFederation, sendSignal } from 'fed';
import { federationPaths, readRegistry, statusOf, workspacePaths } from 'fed/testing';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

const SANDBOX_SUITE = 'the hostile federation tests (need bwrap)';

/** The signals in a box folder, parsed (the files the file backend keeps there). */
function signalsIn(box: string): Array<{ from: string; subject: string; body?: string }> {
  if (!existsSync(box)) return [];
  return readdirSync(box)
    .filter((name) => name.endsWith('.json'))
    .map(
      (name) => JSON.parse(readFileSync(join(box, name), 'utf8')) as { from: string; subject: string; body?: string },
    );
}

/** Every file of the federation an agent must never write, with its bytes. */
function guardedFiles(root: string, deliverable: string): Map<string, string> {
  const paths = federationPaths(root);
  const files = [
    join(paths.teams, 'other', deliverable),
    paths.gitignore,
    ...readdirSync(paths.skills).map((name) => join(paths.skills, name)),
  ];
  return new Map(files.map((file) => [file, readFileSync(file, 'latin1')]));
}

describe("a sandboxed agent writes only its own workspace; its fed commands go through the launcher's broker", () => {
  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a well-behaved agent reports its lifecycle and sends meta a report (stdin included) through the broker (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const result = await launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('complete-and-report'),
        pollMs: 50,
      });
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete', warnings: [] });
      expect(result.lastRun.sandboxed).toBe(true);
      expect(signalsIn(workspacePaths(root).inbox)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ from: 'docs', subject: 'docs written', body: 'The deliverable is written.\n' }),
          expect.objectContaining({ from: 'docs', subject: 'details', body: 'Details from a file.\n' }),
        ]),
      );
      // The broker lives as long as the agent.
      expect(existsSync(workspacePaths(join(root, '.fed', 'teams', 'docs')).brokerSocket)).toBe(false);
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a workspace too deep for a socket address still gets its broker, in the workspace (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission({ mission: false });
      const team = `docs-${'x'.repeat(55)}`;
      await onboardTeam(openFederation(root), { domain: team });
      await sendSignal(openFederation(root), { to: team, type: 'directive', subject: 'Document the project' });
      const socket = workspacePaths(join(federationPaths(root).teams, team)).brokerSocket;
      expect(Buffer.byteLength(socket)).toBeGreaterThan(107);
      const result = await launchTeam(openFederation(root), team, {
        config,
        agent: fakeAgent('complete-and-report'),
        pollMs: 50,
      });
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete', warnings: [] });
      expect(signalsIn(workspacePaths(root).inbox)).toContainEqual(
        expect.objectContaining({ from: team, subject: 'docs written' }),
      );
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    "a brokered agent gets the broker's socket and token, not the backend's URL and credentials (needs bwrap)",
    async () => {
      const { root, config } = await federationWithMission();
      const result = await launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('print-env'),
        pollMs: 50,
        env: {
          ...process.env,
          FED_NATS_URL: 'nats://user:secret@127.0.0.1:4222',
          PRINT_ENV: 'FED_NATS_URL,FED_BROKER,FED_TEAM',
        },
      });
      const transcript = readFileSync(result.lastRun.transcriptPath, 'utf8');
      expect(transcript).toContain('FED_NATS_URL=(unset)\n');
      // On the sandbox's loopback: no Unix socket can be made in a sandbox with a network policy.
      expect(transcript).toContain('FED_BROKER=tcp://127.0.0.1:3129\n');
      expect(transcript).toContain('FED_TEAM=docs\n');
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    "a hostile agent cannot write the registry, another team's files, the skills, .gitignore or meta's inbox, nor make fed do it (needs bwrap)",
    async () => {
      const { root, config } = await federationWithMission();
      await onboardTeam(openFederation(root), { domain: 'other' });
      await sendSignal(openFederation(root), { to: 'other', type: 'directive', subject: 'Other work' });
      const otherWorkspace = join(federationPaths(root).teams, 'other');
      writeFileSync(join(otherWorkspace, config.deliverable), '# Other\n\nWritten before.\n');
      const before = guardedFiles(root, config.deliverable);

      // Another team runs at the same time, with its own broker.
      const stopOther = new AbortController();
      const otherLaunch = launchTeam(openFederation(root), 'other', {
        config,
        agent: fakeAgent('hang'),
        pollMs: 50,
        signal: stopOther.signal,
      });
      const result = await launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('hostile-federation'),
        pollMs: 50,
        env: { ...process.env, HOSTILE_OTHER_BROKER: workspacePaths(otherWorkspace).brokerSocket },
      });
      stopOther.abort();
      await otherLaunch;

      const lines = readFileSync(result.lastRun.transcriptPath, 'utf8');
      for (const what of [
        'registry',
        'registry removal',
        "other team's deliverable",
        "other team's inbox",
        'playbook skill',
        'new skill',
        '.fed/.gitignore',
        "meta's inbox",
      ])
        expect(lines).toContain(`write ${what}: EROFS\n`);
      expect(lines).toMatch(/fed without the broker: exit 1: fed: .*EROFS/);
      expect(lines).toContain(
        'fed as meta: exit 2: fed: sender (--from): this command runs as team "docs" (its workspace, or $FED_TEAM), which cannot act as "meta"',
      );
      expect(lines).toContain(
        `fed on another root: exit 2: fed: --root /tmp: an agent acts only on its own federation (${root}); leave --root out\n`,
      );
      expect(lines).toContain('fed on another root, after the command: exit 2: fed: --root /: an agent acts only');
      expect(lines).toMatch(
        /fed archiving a team: exit 2: fed: fed team archive is not for an agent: inside the sandbox an agent may run fed event, fed signal send\|list\|show\|ack\|watch, /,
      );
      expect(lines).toContain('fed launching a team: exit 2: fed: fed launch is not for an agent');
      expect(lines).toMatch(/fed with a wrong token: exit 2: fed: the broker refused the request: FED_BROKER_TOKEN/);
      // No Unix socket can be made in a sandbox with a network policy (nor has one a broker socket).
      expect(lines).toMatch(
        /fed through another team's broker: exit 1: fed: cannot reach the federation through the launcher's broker at .*\/teams\/other\/.*EPERM/,
      );

      // A team marker naming another team does not change who the broker runs fed as.
      expect(lines).toContain('fed with a forged team marker: exit 0');
      expect(signalsIn(workspacePaths(root).inbox).filter((signal) => signal.subject === 'marker')).toEqual([
        expect.objectContaining({ from: 'docs' }),
      ]);

      // Nothing it tried landed: the guarded files are byte-identical, no team archived (the other one was
      // paused by its interrupted launch), no forged signal.
      expect(guardedFiles(root, config.deliverable)).toEqual(before);
      expect(readRegistry(root).teams.map((team) => [team.domainId, statusOf(team)])).toEqual([
        ['docs', 'active'],
        ['other', 'paused'],
      ]);
      for (const box of [workspacePaths(root).inbox, workspacePaths(otherWorkspace).inbox]) {
        expect(readdirSync(box)).not.toContain('forged.json');
        expect(signalsIn(box).filter((signal) => signal.subject === 'forged')).toEqual([]);
      }
      // It did its own job all the same, through its own broker.
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
    },
  );
});
