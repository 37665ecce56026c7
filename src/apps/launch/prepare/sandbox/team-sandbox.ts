import { mkdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { backendOverTheNetwork } from '../../../../adapters/index.js';
import { RefusedError } from '../../../../core/errors.js';
import { FED_DIR } from '../../../../core/layout.js';
import type { SandboxAllowance } from '../../../../core/schema/config.js';
import type { LaunchContext } from '../../../../core/schema/launch-context.js';
import { createFileExclusive } from '../../../../infra/fs/atomic-write.js';
import { codeCacheDir } from '../../../../infra/code-cache-dir.js';
import { packageRoot } from '../../../../infra/package-info.js';
import type { Launch } from '../../launch.js';
import { agentHomePath, prepareAgentHome, type HomeVariables } from './agent-home.js';
import { codingWorktree } from './coding-worktree.js';
import { hideMounts } from './credential-stores.js';
import type { HostPolicy } from './host-policy.js';
import { networkUnavailable } from './network-refusal.js';
import {
  bubblewrapArgs,
  findBubblewrap,
  machineMounts,
  networkNamespaceMissing,
  shownProgram,
  type HiddenMounts,
  type SandboxMount,
  type SandboxWrapper,
} from './sandbox.js';
import { networkOfItsOwn, sandboxPorts, writeFilter } from './sandbox-network.js';
import { teamSandboxSetting } from './sandbox-setting.js';

/** What the sandbox needs to know of the run's agent CLI. */
export interface SandboxedAgent {
  /** The hosts the team's agent may reach, or `open`. */
  policy: 'open' | HostPolicy;
  /** The built-in agent: fed's own code. */
  builtIn: boolean;
  /** What of the user's home it gets, read-only, in its own. */
  homeFiles: readonly string[];
  homeVariables: HomeVariables | undefined;
}

/** A team's sandbox for one run. */
export interface TeamSandbox {
  /** bwrap and its arguments, put before the agent's program. */
  wrapper: SandboxWrapper;
  /** The hosts the sandboxed agent may reach through fed's proxy; undefined when no policy applies (open). */
  network: HostPolicy | undefined;
  /** What the team's sandbox setting allows beyond the sandbox (said on every run). */
  allows: readonly SandboxAllowance[];
  /** What the sandbox owes once the agent is gone (a coding team's commits brought in); what to say of it. */
  afterRun(): Promise<string[]>;
}

/**
 * The sandbox of a team's agent (sandbox.ts), or undefined — its sandbox off (`agent.sandbox`, or the
 * team's own `agent.teams.<team>.sandbox`), or no bwrap here: said once in the launch output; a team that
 * studies the codebase is then checked before and after the run instead. A team that studies the codebase
 * writes only its own workspace (or, in a worktree, its `.fed/` and its deliverable); a coding team its
 * worktree and its branch (coding-worktree.ts). Every sandboxed agent has a home of its own and sees none of
 * the user's credential stores, nor makes a Unix socket (its seccomp filter, written now for the agent
 * about to start; prepare-fix.ts writes it again for each fix attempt: the agent that ran may have changed
 * the file).
 */
export async function teamSandbox(
  launch: Launch,
  context: LaunchContext,
  agent: SandboxedAgent,
): Promise<TeamSandbox | undefined> {
  const { root, team, warnings, archetype } = launch;
  const { config } = launch.options;
  const env = launch.options.env ?? process.env;
  const setting = teamSandboxSetting(config.agent, team.domainId);
  if (!setting.enabled) return undefined;
  if (agent.policy === 'open')
    warnings.push(
      `team "${team.domainId}" has the network policy "open": its agent can reach any host (agent.network)`,
    );
  const home = agentHomePath(root, team, config.agent);
  const found = findBubblewrap(env, config.agent.home === undefined ? [] : [dirname(home)]);
  // The built-in agent reads a backend on a server itself (supervise/running-agent.ts): fed's own code, it
  // keeps the machine's network for that one connection.
  const ownConnection = agent.builtIn && backendOverTheNetwork(config);
  const policy = agent.policy === 'open' || ownConnection ? undefined : agent.policy;
  // Never a silent fall-back to an open network (the built-in agent is fed's own code and opens no other connection).
  const missing = 'missing' in found ? found.missing : policy && networkNamespaceMissing(found.bwrap, env);
  if (missing && policy && !agent.builtIn) throw networkUnavailable(team.domainId, policy, missing);
  if ('missing' in found) {
    warnings.push(
      archetype.readOnlyCodebase
        ? `${found.missing}: the codebase is not mounted read-only for the agent; fed checks it before and after the run instead`
        : `${found.missing}: team "${team.domainId}"'s agent runs without the sandbox, as you, with your home and this machine's network`,
    );
    return undefined;
  }
  const bwrap = found.bwrap;
  const workspace = archetype.readOnlyCodebase
    ? { mounts: studyWorkspace(launch, context), env: {}, warnings: [], afterRun: async () => [] }
    : await codingWorktree(root, team);
  warnings.push(...workspace.warnings);
  // Made now if missing, so that the agent cannot make it (with a cache of its own) before it is protected.
  const codeCache = codeCacheDir(env);
  if (codeCache) mkdirSync(codeCache, { recursive: true, mode: 0o700 });
  const networked = policy !== undefined && !missing;
  const filtered = writeFilter(team.location, setting.allow);
  const agentHome = prepareAgentHome(home, env, agent.homeFiles, agent.homeVariables);
  const hidden = hideMounts(root, env, config.agent.denyRead);
  refuseHiding(team.domainId, hidden, [team.location, agentHome.home]);
  const machine = machineMounts(env, { codeCache, installation: packageRoot() });
  const plan = { root, workspace: workspace.mounts, hidden, machine, home: agentHome, env: workspace.env };
  return {
    // The built-in agent listens itself, with no listener process before it (sandbox-network.ts): the run's
    // and the launcher's judgement both, so no other program is ever handed the channel.
    wrapper: (program, started) => {
      const shown = shownProgram(program, machine.privateTemp);
      if (shown.alone)
        warnings.push(
          `the agent's program ${program} lies right in ${shown.alone}, which the sandbox makes private: only the program itself is shown in it, not the files beside it; put it in a folder of its own`,
        );
      const agentListens = agent.builtIn && started.builtIn;
      const argv = bubblewrapArgs(bwrap, {
        ...plan,
        program: shown.paths,
        filterFile: filtered,
        network: networked ? { forwardedPorts: policy.forwarded, agentListens } : undefined,
      });
      return networked && !agentListens
        ? { argv, network: { outer: networkOfItsOwn(bwrap), ports: sandboxPorts(policy.forwarded) } }
        : { argv };
    },
    network: networked ? policy : undefined,
    allows: setting.allow,
    afterRun: workspace.afterRun,
  };
}

/**
 * What a team that studies the codebase writes: its own workspace — or, in a worktree, which is codebase
 * too, its `.fed/` and its deliverable, which is created empty for the agent to fill (a bind mount needs
 * its target to exist; an empty one is removed again after the run).
 */
function studyWorkspace(launch: Launch, context: LaunchContext): SandboxMount[] {
  const { team } = launch;
  if (team.placementType !== 'worktree') return [{ kind: 'writable', path: team.location }];
  createFileExclusive(context.deliverablePath, '', { durable: false });
  return [
    { kind: 'read-only', path: team.location },
    { kind: 'writable', path: join(team.location, FED_DIR) },
    { kind: 'writable', path: context.deliverablePath },
  ];
}

/** An `agent.denyRead` entry that would hide the team's own workspace or the agent's home is refused: the agent could not run. */
function refuseHiding(teamId: string, hidden: HiddenMounts, kept: readonly string[]): void {
  for (const mount of [...hidden.outsideRoot, ...hidden.inRoot]) {
    const covered = kept.find((path) => path === mount.path || path.startsWith(`${mount.path}${sep}`));
    if (covered)
      throw new RefusedError(
        'DENY_READ',
        `the sandbox hides ${mount.path} (agent.denyRead, or a credential store your environment names), which holds team "${teamId}"'s own ${covered === kept[0] ? 'workspace' : 'home'} (${covered}): its agent could not work there; name what it must not read inside it instead`,
      );
  }
}
