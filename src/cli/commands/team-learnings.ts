import { Option, type Command } from 'commander';
import { displayLine } from '../../core/display-line.js';
import { workspacePaths } from '../../core/layout.js';
import { LEARNING_CATEGORIES, type LearningCategory, type LearningEntry } from '../../core/schema/learning-log.js';
import { readLearningLog } from '../../engine/deliverable/learning-log.js';
import { federationContext, printJson, type CliIo } from '../io.js';

/** `fed team learnings`: what a team's agent found, from its learning log (docs/design/spec.md §2.5). */
export function registerTeamLearnings(team: Command, io: CliIo): void {
  team
    .command('learnings')
    .description("a team's learning log: its agent's findings with their category and confidence, newest last")
    .argument('<team>', 'team id or domain')
    .addOption(new Option('--category <category>', 'only findings of this category').choices(LEARNING_CATEGORIES))
    .option('--json', 'print {team, path, entries, skippedLines} as JSON')
    .action(async (name: string, options: { category?: LearningCategory; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const entry = await ctx.fed.team(name);
      const path = workspacePaths(entry.location).learningLog;
      const log = readLearningLog(path);
      const entries = options.category ? log.entries.filter((e) => e.category === options.category) : log.entries;
      if (log.skippedLines)
        io.stderr(`warning: skipped ${log.skippedLines} line(s) of ${path} that are not learning-log entries\n`);
      if (options.json) return printJson(io, { team: entry.domainId, path, entries, skippedLines: log.skippedLines });
      if (entries.length === 0)
        return io.stdout(
          `no ${options.category ? `${options.category} ` : ''}findings in ${entry.domainId}'s learning log (${path})\n`,
        );
      io.stdout(entries.map(learningLine).join(''));
    });
}

/** Written by the team's agent: one line each, control characters blanked; the content is never cut. */
function learningLine(e: LearningEntry): string {
  const tags = e.tags.length ? `  [${e.tags.map((t) => displayLine(t, 40)).join(', ')}]` : '';
  return `${e.timestamp}  ${e.category.padEnd(11)}  ${e.confidence.padEnd(6)}  ${displayLine(e.content, Number.POSITIVE_INFINITY)}${tags}\n`;
}
