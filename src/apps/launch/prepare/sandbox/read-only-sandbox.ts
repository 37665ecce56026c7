import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { backendOverTheNetwork } from '../../../../adapters/index.js';
import type { LaunchContext } from '../../../../core/schema/launch-context.js';
import { createFileExclusive } from '../../../../infra/fs/atomic-write.js';
import { codeCacheDir } from '../../../../infra/code-cache-dir.js';
import { packageRoot } from '../../../../infra/package-info.js';
import type { Launch } from '../../launch.js';
import { agentHomePath, prepareAgentHome, type HomeVariables } from './agent-home.js';
import type { HostPolicy } from './host-policy.js';
import { networkUnavailable } from './network-refusal.js';
import { bubblewrapArgs, findBubblewrap, machineMounts, type SandboxWrapper } from './sandbox.js';
import { filterFile, networkNamespaceMissing, writeFilter } from './sandbox-network.js';

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

/**
 * The sandbox wrapper for a team that studies the codebase read-only, or undefined (sandbox off, or no
 * bwrap — said once in the launch output, and the before/after check runs instead). With a network policy
 * its seccomp filter is written now, for the agent about to start (prepare-fix.ts writes it again for each
 * fix attempt: the agent that ran may have changed the file).
 */
export function readOnlySandbox(
  launch: Launch,
  context: LaunchContext,
  agent: SandboxedAgent,
): { sandbox: SandboxWrapper | undefined; network: HostPolicy | undefined } {
  const { root, team, warnings } = launch;
  const { config } = launch.options;
  const env = launch.options.env ?? process.env;
  if (!config.agent.sandbox) return { sandbox: undefined, network: undefined };
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
  const missing = 'missing' in found ? found.missing : policy && networkNamespaceMissing(found.bwrap);
  if (missing && policy && !agent.builtIn) throw networkUnavailable(team.domainId, policy, missing);
  if ('missing' in found) {
    warnings.push(
      `${found.missing}: the codebase is not mounted read-only for the agent; fed checks it before and after the run instead`,
    );
    return { sandbox: undefined, network: undefined };
  }
  const bwrap = found.bwrap;
  const worktree = team.placementType === 'worktree' ? team.location : undefined;
  // A bind mount needs its target to exist: the deliverable is created empty, for the agent to fill (an
  // empty one is removed again after the run).
  if (worktree) createFileExclusive(context.deliverablePath, '', { durable: false });
  // Made now if missing, so that the agent cannot make it (with a cache of its own) before it is protected.
  const codeCache = codeCacheDir(env);
  if (codeCache) mkdirSync(codeCache, { recursive: true, mode: 0o700 });
  const networked = policy !== undefined && !missing;
  if (networked) writeFilter(team.location);
  const plan = {
    root,
    workspace: team.location,
    worktree,
    writableFiles: worktree ? [context.deliverablePath] : [],
    machine: machineMounts(env, { codeCache, installation: packageRoot() }),
    home: prepareAgentHome(home, env, agent.homeFiles, agent.homeVariables),
  };
  return {
    // The built-in agent listens itself, with no listener process before it (sandbox-network.ts): the run's
    // and the launcher's judgement both, so no other program is ever handed the channel.
    sandbox: (program, started) =>
      bubblewrapArgs(bwrap, {
        ...plan,
        program,
        network: networked
          ? {
              filterFile: filterFile(team.location),
              forwardedPorts: policy.forwarded,
              agentListens: agent.builtIn && started.builtIn,
            }
          : undefined,
      }),
    network: networked ? policy : undefined,
  };
}
