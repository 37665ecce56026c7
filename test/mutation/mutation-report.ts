/**
 * What `npm run mutate` reads from Stryker's JSON report (the mutation-testing-elements schema): each
 * file's mutants with their status.
 */
export interface MutationReport {
  files: Record<
    string,
    {
      source: string;
      mutants: {
        mutatorName: string;
        replacement?: string;
        status: string;
        location: { start: { line: number; column: number } };
      }[];
    }
  >;
}

/** Stryker's mutation score: killed and timed-out mutants over every mutant a test could have killed. */
export function mutationScore(report: MutationReport): { killed: number; valid: number; percent: number } {
  let killed = 0;
  let valid = 0;
  for (const file of Object.values(report.files))
    for (const mutant of file.mutants) {
      if (['Killed', 'Timeout'].includes(mutant.status)) killed++;
      if (['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(mutant.status)) valid++;
    }
  return { killed, valid, percent: valid === 0 ? 100 : (100 * killed) / valid };
}

/** Each mutant no test killed: `file:line mutator → replacement`. */
export function survivors(report: MutationReport): string[] {
  const out: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files))
    for (const mutant of mutants)
      if (mutant.status === 'Survived' || mutant.status === 'NoCoverage')
        out.push(
          `${file}:${mutant.location.start.line} ${mutant.mutatorName}${mutant.replacement !== undefined ? ` → ${JSON.stringify(mutant.replacement).slice(0, 80)}` : ''}${mutant.status === 'NoCoverage' ? ' (no test runs it)' : ''}`,
        );
  return out;
}
