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
