import { configSchema } from 'fed';
import { describe, expect, it } from 'vitest';
import { teamAgent, teamLaunchConfig } from '../../../src/apps/launch/team-agent.js';

const config = (input: unknown) => configSchema.parse(input);

describe("a team's own agent over the federation's", () => {
  const federation = {
    agentCommand: 'claude --verbose',
    agent: {
      model: 'sonnet',
      args: ['--fast'],
      account: 'work',
      limits: { maxTurns: 40, maxCostUsd: 5, federationUsd: 100 },
    },
  };

  it("takes the federation's agent, model, args, account and limits where the team sets nothing", () => {
    const agent = teamAgent(config(federation), 'docs');
    expect(agent.command).toEqual({ value: 'claude --verbose', from: 'agentCommand' });
    expect(agent.preset).toEqual({ value: 'claude', from: 'the program name of agentCommand' });
    expect(agent.model).toEqual({ value: 'sonnet', from: 'agent.model' });
    expect(agent.account).toEqual({ value: 'work', from: 'agent.account' });
    expect(agent.limits.maxTurns).toEqual({ value: 40, from: 'agent.limits.maxTurns' });
    expect(agent.limits.maxMinutes).toEqual({ value: undefined, from: 'not set' });
  });

  it('on the same CLI, overrides what the team sets, one limit at a time', () => {
    const agent = teamAgent(
      config({
        ...federation,
        agent: { ...federation.agent, teams: { docs: { model: 'opus', limits: { maxTurns: 5 } } } },
      }),
      'docs',
    );
    expect(agent.model).toEqual({ value: 'opus', from: 'agent.teams.docs.model' });
    expect(agent.args.value).toEqual(['--fast']);
    expect(agent.limits.maxTurns).toEqual({ value: 5, from: 'agent.teams.docs.limits.maxTurns' });
    expect(agent.limits.maxCostUsd).toEqual({ value: 5, from: 'agent.limits.maxCostUsd' });
  });

  it("on another CLI, leaves the federation's model, args and account to the federation's CLI", () => {
    const agent = teamAgent(
      config({ ...federation, agent: { ...federation.agent, teams: { docs: { command: '/opt/bin/codex' } } } }),
      'docs',
    );
    expect(agent.preset).toEqual({ value: 'codex', from: 'the program name of agent.teams.docs.command' });
    expect(agent.model.value).toBeUndefined();
    expect(agent.args.value).toEqual([]);
    // Its rate limits are its CLI's login's: the preset's name.
    expect(agent.account).toEqual({ value: 'codex', from: "the preset's name" });
  });

  it("gives a launch the team's agent in the federation's place, and the federation's budget as it is", () => {
    const launch = teamLaunchConfig(
      config({
        ...federation,
        agent: { ...federation.agent, teams: { docs: { command: 'codex', model: 'o9', limits: { maxMinutes: 3 } } } },
      }),
      'docs',
    );
    expect(launch.agentCommand).toBe('codex');
    // Its preset and account are chosen from the command the launch runs (a `--agent` given to it included):
    // codex's, not the federation's claude.
    expect(launch.agent).toMatchObject({ preset: undefined, model: 'o9', args: [], account: undefined });
    expect(launch.agent.limits).toEqual({ maxTurns: 40, maxCostUsd: 5, maxMinutes: 3, federationUsd: 100 });
  });

  it("refuses a team's federation budget by name", () => {
    const parsed = configSchema.safeParse({ agent: { teams: { docs: { limits: { federationUsd: 3 } } } } });
    expect(parsed.error?.issues[0]?.message).toContain("federationUsd is the whole federation's budget");
  });
});
