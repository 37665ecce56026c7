/**
 * The demo as a script: real CLI invocations (each with a comment saying what it shows), and a look at
 * a file the run produced. `fed demo` prints each command as a user would type it, then its output.
 */
export type DemoStep =
  | { comment: string; args: string[] }
  | { comment: string; showFile: string; lines: number };

export const DEMO_TEAM = 'docs';

export function demoSteps(deliverable: string): DemoStep[] {
  const deliverablePath = `.fed/teams/${DEMO_TEAM}/${deliverable}`;
  return [
    { comment: 'create a federation: config, meta inbox/outbox, skills, empty registry', args: ['init', '--name', 'demo-fed', '--description', 'fed demo federation'] },
    { comment: 'onboard a deliverable team (it writes documents from read-only study of the codebase)', args: ['team', 'onboard', DEMO_TEAM] },
    {
      comment: 'meta assigns the mission with a directive signal',
      args: ['signal', 'send', '--to', DEMO_TEAM, '--type', 'directive', '--subject', 'Document this codebase', '--body', 'Write an architecture overview for a newcomer: what it is, how it is laid out, how to build, run and test it.'],
    },
    { comment: 'launch the team: the built-in agent (fed-agent) walks the lifecycle with fed event', args: ['launch', '--team', DEMO_TEAM] },
    { comment: 'a monitoring cycle: lifecycle, signals, deliverable and health of every team', args: ['monitor'] },
    { comment: 'check the deliverable against the documentation standards', args: ['deliverable', 'check', deliverablePath] },
    { comment: 'the start of the deliverable', showFile: deliverablePath, lines: 30 },
    { comment: "meta's inbox: the team reported every transition and the finished deliverable", args: ['signal', 'list', '--team', 'meta'] },
  ];
}
