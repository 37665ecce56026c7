import type { Attributes } from '@opentelemetry/api';
import { lazyInstruments } from './meter.js';

/**
 * fed's activity metrics (issue 8), through the OpenTelemetry API only: without a registered provider
 * every record is a no-op. Attributes are bounded on purpose — team ids, signal types, lifecycle states,
 * archetypes — never signal ids or file names, which would make one time series per signal.
 */
const instruments = lazyInstruments((meter) => ({
  signalsSent: meter.createCounter('fed.signals.sent', {
    description: 'Signals delivered to an inbox, by sending team and type',
    unit: '{signal}',
  }),
  signalsReceived: meter.createCounter('fed.signals.received', {
    description: "Signals a team's lifecycle processed, by team, type and outcome (applied or ignored)",
    unit: '{signal}',
  }),
  signalsAcknowledged: meter.createCounter('fed.signals.acknowledged', {
    description: 'Acknowledgment files written, by receiving team and type',
    unit: '{signal}',
  }),
  transitions: meter.createCounter('fed.lifecycle.transitions', {
    description: 'Lifecycle state changes, by team, archetype, from and to state',
    unit: '{transition}',
  }),
  registryConflicts: meter.createCounter('fed.registry.conflicts', {
    description: 'Registry writes that lost an optimistic-concurrency race and were retried',
    unit: '{conflict}',
  }),
  teams: meter.createGauge('fed.teams', {
    description: 'Registered teams, as of the last monitoring cycle',
    unit: '{team}',
  }),
  unhealthyTeams: meter.createGauge('fed.teams.unhealthy', {
    description: 'Unhealthy teams, as of the last monitoring cycle',
    unit: '{team}',
  }),
  // The GenAI conventions' agent metrics (development status): one measurement per agent run.
  agentDuration: meter.createHistogram('gen_ai.invoke_agent.duration', {
    description: "Duration of an agent run, from the agent's start to its end",
    unit: 's',
    advice: { explicitBucketBoundaries: [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400] },
  }),
  tokenUsage: meter.createHistogram('gen_ai.client.token.usage', {
    description: 'Tokens an agent run used, by gen_ai.token.type (input or output)',
    unit: '{token}',
    // The buckets the conventions advise for token usage.
    advice: {
      explicitBucketBoundaries: [
        1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
      ],
    },
  }),
  runCost: meter.createHistogram('fed.run.cost_usd', {
    description: 'What an agent run cost, in US dollars, where the agent CLI reports it',
    unit: '{USD}',
    advice: { explicitBucketBoundaries: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100] },
  }),
}));

/** A new signal reached its recipient's inbox; `team` is the sender (a team id or `meta`). */
export function recordSignalSent(team: string, type: string): void {
  instruments().signalsSent.add(1, { team, type });
}

export function recordSignalReceived(team: string, type: string, outcome: 'applied' | 'ignored'): void {
  instruments().signalsReceived.add(1, { team, type, outcome });
}

/** `team` is the recipient whose inbox holds the acknowledged signal. */
export function recordSignalAcknowledged(team: string, type: string): void {
  instruments().signalsAcknowledged.add(1, { team, type });
}

export function recordTransition(team: string, archetype: string, from: string, to: string): void {
  instruments().transitions.add(1, { team, archetype, from, to });
}

export function recordRegistryConflict(): void {
  instruments().registryConflicts.add(1);
}

export function recordMonitorCycle(totals: { teams: number; unhealthy: number }): void {
  const { teams, unhealthyTeams } = instruments();
  teams.record(totals.teams);
  unhealthyTeams.record(totals.unhealthy);
}

/** What one agent run measured; null where the agent CLI did not report it. */
export interface AgentRunMeasures {
  seconds: number;
  inputTokens: number | null;
  outputTokens: number | null;
  costUsd: number | null;
}

/**
 * One agent run (a launch), under the run's bounded attributes (gen_ai.operation.name, gen_ai.provider.name,
 * gen_ai.agent.name = the team, gen_ai.request.model, error.type): its duration, its tokens by type, its cost.
 */
export function recordAgentRun(attributes: Attributes, measures: AgentRunMeasures): void {
  const { agentDuration, tokenUsage, runCost } = instruments();
  agentDuration.record(measures.seconds, attributes);
  if (measures.inputTokens !== null)
    tokenUsage.record(measures.inputTokens, { ...attributes, 'gen_ai.token.type': 'input' });
  if (measures.outputTokens !== null)
    tokenUsage.record(measures.outputTokens, { ...attributes, 'gen_ai.token.type': 'output' });
  if (measures.costUsd !== null) runCost.record(measures.costUsd, attributes);
}
