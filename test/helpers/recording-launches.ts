/**
 * A dispatcher's `launch` whose launches end at once as `end`, each launched team recorded in `launched`,
 * in order (the dispatcher tests' stand-in for `fed launch`).
 */
export function recordingLaunches<End>(end: End): {
  launch: (candidate: { team: { domainId: string } }) => Promise<End>;
  launched: string[];
} {
  const launched: string[] = [];
  return {
    launch: async (candidate) => {
      launched.push(candidate.team.domainId);
      return end;
    },
    launched,
  };
}
