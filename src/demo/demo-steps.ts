/** The demo as a list of CLI invocations, each with a comment saying what it shows. */
export interface DemoStep {
  comment: string;
  args: string[];
}

export function demoSteps(): DemoStep[] {
  return [
    { comment: 'create a federation: config, meta inbox/outbox, skills, empty registry', args: ['init', '--name', 'demo-fed', '--description', 'fed demo federation'] },
    { comment: 'onboard a deliverable team (writes documents from read-only study)', args: ['team', 'onboard', 'docs'] },
    { comment: 'onboard a coding team', args: ['team', 'onboard', 'api', '--archetype', 'coding'] },
    { comment: 'pause and resume a team through its status machine', args: ['team', 'pause', 'api'] },
    { comment: 'resume it', args: ['team', 'resume', 'api'] },
    { comment: 'list the registered teams', args: ['team', 'list'] },
  ];
}
