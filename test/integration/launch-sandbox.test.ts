import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  type FederationConfig,
  launchTeam,
  onboardTeam,
  openFederation,
  runFederation,
  sendSignal,
  viewLifecycle,
} from 'fed';
import { getTeam, readRegistry } from 'fed/testing';
import { waitFor } from '../helpers/fixture-process.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { tempDir } from '../helpers/temp-dir.js';
import { skipWithoutBubblewrap } from '../helpers/bubblewrap.js';

const SANDBOX_SUITE = 'the sandbox tests (need bwrap)';
const withoutSandbox = (config: FederationConfig): FederationConfig => ({
  ...config,
  agent: { ...config.agent, sandbox: false },
});

async function worktreeTeam(): Promise<{ root: string; config: FederationConfig }> {
  const federation = await federationWithMission({ mission: false });
  await onboardTeam(openFederation(federation.root), { domain: 'wt', placementType: 'worktree' });
  await sendSignal(openFederation(federation.root), { to: 'wt', type: 'directive', subject: 'Document the project' });
  return federation;
}

describe('the read-only sandbox of deliverable teams (bubblewrap)', () => {
  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a sandboxed agent cannot write the codebase: EROFS inside, the codebase unchanged (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const result = await launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('write-codebase'),
        pollMs: 50,
      });
      const transcript = readFileSync(result.lastRun.transcriptPath, 'utf8');
      expect(transcript).toContain('write to README.md: EROFS');
      expect(transcript).toContain('write to new file: EROFS');
      expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# project\n');
      expect(existsSync(join(root, 'agent-was-here.txt'))).toBe(false);
      // Its own workspace, the federation's state and temp dirs stay writable: the job gets done.
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete', warnings: [] });
      expect(result.lastRun.sandboxed).toBe(true);
    },
  );

  /** A shell script agent in `folder` that sources `common.sh` beside it, which runs the `complete` fixture. */
  function scriptBesideItsCommon(folder: string, name = 'run-agent.sh'): string {
    const [node, script] = fakeAgent('complete')
      .split("' '")
      .map((part) => part.replaceAll("'", ''));
    writeFileSync(join(folder, `${name}.common.sh`), `AGENT_NODE='${node}'\nAGENT_SCRIPT='${script}'\n`);
    writeFileSync(
      join(folder, name),
      `#!/bin/sh\n. "$(dirname "$0")/${name}.common.sh" || exit 9\nexec "$AGENT_NODE" "$AGENT_SCRIPT"\n`,
    );
    chmodSync(join(folder, name), 0o755);
    return join(folder, name);
  }

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'an agent program in a temp dir keeps what lies beside it in view: a script that sources its neighbour runs (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const agent = scriptBesideItsCommon(tempDir('fed-agent-program-'));
      const result = await launchTeam(openFederation(root), 'docs', { config, agent, pollMs: 50 });
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete', warnings: [] });
      expect(result.lastRun.sandboxed).toBe(true);
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'an agent program right in /tmp keeps only itself in view (/tmp stays private), and the launch says so (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const name = `fed-agent-${randomUUID()}.sh`;
      const agent = scriptBesideItsCommon('/tmp', name);
      onTestFinished(() => {
        for (const file of [agent, `${agent}.common.sh`]) rmSync(file, { force: true });
      });
      const result = await launchTeam(openFederation(root), 'docs', { config, agent, pollMs: 50 });
      expect(result.warnings).toContain(
        `the agent's program ${agent} lies right in /tmp, which the sandbox makes private: only the program itself is shown in it, not the files beside it; put it in a folder of its own`,
      );
      expect(result.outcome).not.toBe('complete');
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'files others write in the repository during a sandboxed run do not fail the team (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const launch = launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('complete-slowly'),
        pollMs: 50,
      });
      const docs = getTeam(readRegistry(root), 'docs');
      await waitFor(
        async () => (await viewLifecycle(openFederation(root), docs)).state === 'scanning',
        15_000,
        'the agent to start scanning',
      );
      // The user redirecting `fed launch > launch.log` in the repository root, an editor's swap file, …
      writeFileSync(join(root, 'launch.log'), 'output of fed launch\n');
      const result = await launch;
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    "a sandboxed worktree team cannot edit its own checkout's tracked files (needs bwrap)",
    async () => {
      const { root, config } = await worktreeTeam();
      const result = await launchTeam(openFederation(root), 'wt', {
        config,
        agent: fakeAgent('edit-own-worktree'),
        pollMs: 50,
      });
      expect(readFileSync(result.lastRun.transcriptPath, 'utf8')).toContain('write to README.md: EROFS');
      expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a sandboxed agent that ignores SIGTERM is killed after the grace period, with everything in its sandbox, before the launch returns (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const mark = `fed-hang-ignoring-term-${randomUUID()}`;
      const result = await launchTeam(openFederation(root), 'docs', {
        config,
        agent: fakeAgent('hang-ignoring-term'),
        env: { ...process.env, FED_HOSTILE_MARK: mark },
        timeoutSeconds: 2,
        graceMs: 500,
        pollMs: 50,
      });
      expect(result).toMatchObject({ outcome: 'paused' });
      expect(result.lastRun.outcome).toBe('timeout');
      expect(result.lastRun.sandboxed).toBe(true);
      const running = (needle: string) =>
        readdirSync('/proc')
          .filter((entry) => /^\d+$/.test(entry))
          .filter((pid) => {
            try {
              const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
              return (
                !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') &&
                readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(needle)
              );
            } catch {
              return false;
            }
          });
      expect(running(mark)).toEqual([]);
      expect(running(`hang-ignoring-term.mjs\0`)).toEqual([]);
    },
  );

  it('without the sandbox the launch says so once, and a worktree team editing its own tracked file is caught', async () => {
    const { root, config } = await worktreeTeam();
    const result = await launchTeam(openFederation(root), 'wt', {
      config: withoutSandbox(config),
      agent: fakeAgent('edit-own-worktree'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'failed', state: 'failed' });
    expect(result.reason).toMatch(/^codebase modified: \.fed\/worktrees\/wt\/README\.md/);
    expect(result.lastRun.sandboxed).toBe(false);
  });

  /** A PATH with git (the before/after check needs it) and no bwrap. */
  function pathWithoutBwrap(): string {
    const bin = tempDir();
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    return bin;
  }

  it('without bwrap on PATH the launch of a team whose network is open falls back to the before/after check and says so once', async () => {
    const { root, config } = await federationWithMission();
    const result = await launchTeam(openFederation(root), 'docs', {
      config: { ...config, agent: { ...config.agent, teams: { docs: { network: 'open' } } } },
      agent: fakeAgent('complete'),
      pollMs: 50,
      env: { ...process.env, PATH: pathWithoutBwrap() },
    });
    expect(result).toMatchObject({ outcome: 'complete', state: 'complete' });
    expect(result.warnings.filter((w) => w.includes('bubblewrap'))).toEqual([
      'bubblewrap (bwrap) is not installed (apt-get install bubblewrap): the codebase is not mounted read-only for the agent; fed checks it before and after the run instead',
    ]);
    expect(result.lastRun.network).toBeUndefined();
    expect(result.warnings).toContain(
      'team "docs" has the network policy "open": its agent can reach any host (agent.network)',
    );
  });

  it('with a bwrap that builds the sandbox but no network namespace, a team with a network policy is not launched either, the reason named', async () => {
    const { root, config } = await federationWithMission();
    // As where user namespaces work but a network namespace may not be made (a container without CAP_NET_ADMIN).
    const bin = pathWithoutBwrap();
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\ncase "$*" in *--unshare-net*) echo "bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted" >&2; exit 1;; esac\nexit 0\n',
    );
    chmodSync(join(bin, 'bwrap'), 0o755);
    const launched = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      pollMs: 50,
      env: { ...process.env, PATH: bin },
    });
    await expect(launched).rejects.toMatchObject({
      code: 'NETWORK_POLICY_UNAVAILABLE',
      message: expect.stringContaining(
        `bubblewrap (${join(bin, 'bwrap')}) cannot give the sandbox a network of its own (--unshare-net, --seccomp): bwrap: loopback: Failed RTM_NEWADDR: Operation not permitted`,
      ),
    });
    expect((await viewLifecycle(openFederation(root), getTeam(readRegistry(root), 'docs'))).state).toBe('preparing');
  });

  it('without bwrap on PATH a team with a network policy is not launched: never an open network instead', async () => {
    const { root, config } = await federationWithMission();
    const launched = launchTeam(openFederation(root), 'docs', {
      config,
      agent: fakeAgent('complete'),
      pollMs: 50,
      env: { ...process.env, PATH: pathWithoutBwrap() },
    });
    await expect(launched).rejects.toMatchObject({
      code: 'NETWORK_POLICY_UNAVAILABLE',
      message:
        'team "docs" has the network policy none (no host), which needs a sandbox with a network of its own, and bubblewrap (bwrap) is not installed (apt-get install bubblewrap); install bubblewrap where user namespaces are allowed (apt-get install bubblewrap), or let this team\'s agent reach any host: "agent": { "teams": { "docs": { "network": "open" } } } in federate.config.json',
    });
  });

  it('without the sandbox (agent.sandbox: false) a team whose config sets it a network policy is not launched: the policy is never silently dropped', async () => {
    const { root, config } = await federationWithMission();
    const docs = getTeam(readRegistry(root), 'docs');
    const before = (await viewLifecycle(openFederation(root), docs)).state;
    const refused = (agent: FederationConfig['agent']) =>
      launchTeam(openFederation(root), 'docs', {
        config: { ...config, agent },
        agent: fakeAgent('complete'),
        pollMs: 50,
      });
    await expect(refused({ ...config.agent, sandbox: false, network: 'none' })).rejects.toMatchObject({
      code: 'NETWORK_POLICY_UNAVAILABLE',
      message:
        'team "docs" has the network policy "none" (agent.network), which needs the sandbox, and agent.sandbox is false: its agent would run with this machine\'s network; turn the sandbox on (leave agent.sandbox out of federate.config.json), or let this team\'s agent reach any host: set agent.network to "open"',
    });
    await expect(
      refused({ ...config.agent, sandbox: false, teams: { docs: { network: { allow: ['127.0.0.1:4000'] } } } }),
    ).rejects.toMatchObject({
      code: 'NETWORK_POLICY_UNAVAILABLE',
      message: expect.stringContaining(
        'the network policy {"allow":["127.0.0.1:4000"]} (agent.teams.docs.network), which needs the sandbox, and agent.sandbox is false',
      ),
    });
    // Another program given the built-in agent's preset is no built-in agent: no exemption.
    await expect(
      refused({ ...config.agent, sandbox: false, network: 'none', preset: 'fed-agent' }),
    ).rejects.toMatchObject({ code: 'NETWORK_POLICY_UNAVAILABLE' });
    // Refused before the mission is applied.
    expect((await viewLifecycle(openFederation(root), docs)).state).toBe(before);
    // "open", or no policy set (the default is the sandbox's), runs it as before: unsandboxed, said so.
    const result = await launchTeam(openFederation(root), 'docs', {
      config: { ...config, agent: { ...config.agent, sandbox: false, teams: { docs: { network: 'open' } } } },
      agent: fakeAgent('complete'),
      pollMs: 50,
    });
    expect(result).toMatchObject({ outcome: 'complete', lastRun: { sandboxed: false } });
  });

  it('a coding team whose own sandbox is off (agent.teams.<id>.sandbox: false) and whose config sets it a network policy is not launched, naming that setting', async () => {
    const { root, config } = await federationWithMission({ mission: false });
    await onboardTeam(openFederation(root), { domain: 'app', archetypeId: 'coding' });
    await sendSignal(openFederation(root), { to: 'app', type: 'directive', subject: 'Add greet()' });
    const app = getTeam(readRegistry(root), 'app');
    const before = (await viewLifecycle(openFederation(root), app)).state;
    const launch = (agent: FederationConfig['agent']) =>
      launchTeam(openFederation(root), 'app', {
        config: { ...config, agent },
        agent: fakeAgent('complete'),
        pollMs: 50,
      });
    await expect(
      launch({ ...config.agent, teams: { app: { network: 'none', sandbox: false } } }),
    ).rejects.toMatchObject({
      code: 'NETWORK_POLICY_UNAVAILABLE',
      message:
        'team "app" has the network policy "none" (agent.teams.app.network), which needs the sandbox, and agent.teams.app.sandbox is false: its agent would run with this machine\'s network; turn the sandbox on (leave agent.teams.app.sandbox out of federate.config.json), or let this team\'s agent reach any host: set agent.teams.app.network to "open"',
    });
    // Refused before the mission is applied: the lifecycle has not moved.
    expect((await viewLifecycle(openFederation(root), app)).state).toBe(before);
    // The team's own setting off, no policy set for it: it runs unsandboxed, and says so.
    const result = await launch({ ...config.agent, teams: { app: { sandbox: false } } });
    expect(result.lastRun.sandboxed).toBe(false);
  });

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a team whose sandbox allows unix-sockets reaches a host socket, and its run records the allowance (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const path = join(root, 'db.sock');
      const server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.listen(path, resolve));
      onTestFinished(() => void server.close());
      const launch = (agent: FederationConfig['agent']) =>
        launchTeam(openFederation(root), 'docs', {
          config: { ...config, agent },
          agent: fakeAgent('reach-unix-socket'),
          pollMs: 50,
          env: { ...process.env, FED_UNIX_SOCKET: path },
        });
      const allowed = await launch({ ...config.agent, teams: { docs: { sandbox: { allow: ['unix-sockets'] } } } });
      expect(readFileSync(allowed.lastRun.transcriptPath, 'utf8')).toContain('the host Unix socket: reached\n');
      expect(allowed.lastRun).toMatchObject({ sandboxed: true, sandboxAllows: ['unix-sockets'] });
    },
  );

  it.skipIf(skipWithoutBubblewrap(SANDBOX_SUITE))(
    'a team whose network is open still makes no Unix socket, and reaches fed through its broker on the loopback (needs bwrap)',
    async () => {
      const { root, config } = await federationWithMission();
      const path = join(root, 'db.sock');
      const server = createServer((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.listen(path, resolve));
      onTestFinished(() => void server.close());
      const result = await launchTeam(openFederation(root), 'docs', {
        config: { ...config, agent: { ...config.agent, network: 'open' } },
        agent: fakeAgent('reach-unix-socket'),
        pollMs: 50,
        env: { ...process.env, FED_UNIX_SOCKET: path },
      });
      expect(readFileSync(result.lastRun.transcriptPath, 'utf8')).toContain('the host Unix socket: refused (EPERM)\n');
      // Its fed commands went through the broker, on a port of the machine's loopback.
      expect(result).toMatchObject({ outcome: 'complete', lastRun: { sandboxed: true } });
    },
  );

  it("fed run calls a launch its agent.home or network policy refuses 'refused', as fed launch exits 2 for it, not an error", async () => {
    const { root, config } = await federationWithMission();
    for (const agent of [
      { ...config.agent, home: '.' },
      { ...config.agent, sandbox: false, network: 'none' as const },
    ]) {
      const summary = await runFederation(openFederation(root), {
        config: { ...config, agent },
        agent: fakeAgent('complete'),
        pollMs: 50,
      });
      expect(summary).toMatchObject({ refused: 1, failed: 0, completed: 0 });
    }
  });
});
