import { DEMO_PACKAGES } from './demo-codebase.js';

/**
 * The demo as a script: real CLI invocations (each with a comment saying what it shows), and a look at
 * a file the run produced. `fed demo` prints each command as a user would type it, then its output.
 */
export type DemoStep = { comment: string; args: string[] } | { comment: string; showFile: string; lines: number };

/** The teams `fed plan` proposes for the sample codebase: one per package. */
export const DEMO_TEAMS = DEMO_PACKAGES.map((pkg) => `${pkg.name}-docs`);

export function demoSteps(federationReport: string): DemoStep[] {
  return [
    {
      comment: 'create a federation: config, meta inbox/outbox, skills, empty registry',
      args: ['init', '--name', 'demo-fed', '--description', 'fed demo federation'],
    },
    {
      comment:
        'plan the federation: one deliverable team per area of the codebase (here: its three packages), each with a mission',
      args: ['plan', '--teams', '3'],
    },
    {
      comment: 'apply the plan: onboard the teams and send each its mission directive from meta',
      args: ['plan', '--teams', '3', '--apply'],
    },
    {
      comment:
        'run every team with a mission, in parallel, each supervised as fed launch does; the built-in agent (fed-agent) walks each lifecycle',
      args: ['run'],
    },
    { comment: 'a monitoring cycle: lifecycle, signals, deliverable and health of every team', args: ['monitor'] },
    {
      comment: 'the federation report meta wrote passes the documentation standards too',
      args: ['deliverable', 'check', federationReport],
    },
    {
      comment: 'the start of the federation report: one section per team, and a diagram of the teams and their signals',
      showFile: federationReport,
      lines: 40,
    },
    { comment: 'what happened to one team, in time order', args: ['log', '--team', DEMO_TEAMS[2]!] },
  ];
}
