import { describe, expect, it } from 'vitest';
import { launchTeam, openFederation } from 'fed';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';
import { launchEdges, walkOf, type PhaseStep } from '../model/launch-sequence.js';
import { recordAccountLimit } from 'fed/testing';

/**
 * Real launches walk the launch machine (machines/launch.machine.ts): each scenario's reported steps are
 * a walk of it ending where the scenario must, and together they take every edge of the machine — so the
 * machine and the launcher cannot drift apart.
 */
type Scenario = {
  name: string;
  mission?: boolean;
  agent: string;
  timeoutSeconds?: number;
  /** The CLI account (custom, the fake agents' preset) is under a rate limit another team met. */
  accountLimited?: boolean;
  walk: string[];
  outcome?: string;
};

const scenarios: Scenario[] = [
  {
    name: 'no mission: refused by the checks',
    mission: false,
    agent: fakeAgent('complete'),
    walk: ['refusing REFUSED'],
  },
  {
    name: 'an agent command that cannot start: refused while preparing',
    agent: 'no-such-agent-xyz',
    walk: ['refusing CHECKED', 'preparing REFUSED'],
  },
  {
    name: 'the agent completes the work',
    agent: fakeAgent('complete'),
    walk: [
      'refusing CHECKED',
      'preparing AGENT_STARTED',
      'running AGENT_EXITED',
      'judging JUDGED',
      'recording RECORDED',
    ],
    outcome: 'complete',
  },
  {
    name: 'the agent exits without progress: the team fails',
    agent: `'${process.execPath}' -e "process.exit(4)"`,
    walk: [
      'refusing CHECKED',
      'preparing AGENT_STARTED',
      'running AGENT_EXITED',
      'judging JUDGED',
      'recording RECORDED',
    ],
    outcome: 'failed',
  },
  {
    name: 'a hung agent is stopped at the timeout: the team pauses',
    agent: fakeAgent('hang'),
    timeoutSeconds: 1,
    walk: [
      'refusing CHECKED',
      'preparing AGENT_STARTED',
      'running STOP',
      'stopping AGENT_EXITED',
      'judging JUDGED',
      'recording RECORDED',
    ],
    outcome: 'paused',
  },
  {
    name: "the CLI account's rate limit has not reset: the team pauses without starting the agent",
    agent: fakeAgent('complete'),
    accountLimited: true,
    walk: ['refusing CHECKED', 'preparing JUDGED', 'recording RECORDED'],
    outcome: 'paused',
  },
];

async function launchScenario(scenario: Scenario): Promise<{ steps: PhaseStep[]; outcome?: string }> {
  const { root, config } = await federationWithMission({ mission: scenario.mission ?? true });
  const steps: PhaseStep[] = [];
  if (scenario.accountLimited) {
    const now = new Date();
    recordAccountLimit(openFederation(root), {
      account: 'custom',
      resumeAt: new Date(now.getTime() + 3_600_000).toISOString(),
      team: 'other',
      runId: 'run-1',
      reason: 'rate limit',
      recordedAt: now.toISOString(),
    });
  }
  const launched = launchTeam(openFederation(root), 'docs', {
    config,
    agent: scenario.agent,
    timeoutSeconds: scenario.timeoutSeconds,
    pollMs: 50,
    graceMs: 1000,
    onPhase: (phase, event) => steps.push({ phase, event }),
  });
  const outcome = await launched.then(
    (result) => result.outcome,
    () => undefined,
  );
  return { steps, outcome };
}

describe('the launch sequence, walked by real launches', () => {
  it.each(scenarios)(
    '$name',
    async (scenario) => {
      const { steps, outcome } = await launchScenario(scenario);
      const walk = walkOf(steps);
      expect(walk).toEqual(scenario.walk);
      expect(outcome).toBe(scenario.outcome);
      if (scenario.outcome)
        expect(steps.find((s) => s.event.type === 'JUDGED')?.event).toEqual({
          type: 'JUDGED',
          outcome: scenario.outcome,
        });
    },
    60_000,
  );

  it('together the scenarios take every edge of the launch machine', () => {
    expect([...new Set(scenarios.flatMap((s) => s.walk))].sort()).toEqual(launchEdges().sort());
  });
});
