import type { Command } from 'commander';
import { eventLine, reportInspectedEvent } from '../../apps/launch/supervise/agent-events.js';
import { InvalidInputError } from '../../core/errors.js';
import { parseJsonText } from '../../core/json-text.js';
import { getTeam } from '../../core/find-team.js';
import { assertActsAsCaller } from '../../core/resolve-party.js';
import { federationContext, printJson, type CliIo } from '../io.js';
import { requireTeam } from '../team-option.js';

function parseData(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  const json = parseJsonText(text);
  if (!json.ok)
    throw new InvalidInputError(`--data is not valid JSON (line ${json.line}, column ${json.column}: ${json.message})`);
  if (typeof json.value !== 'object' || json.value === null || Array.isArray(json.value)) {
    throw new InvalidInputError(
      "--data must be a JSON object with the event's fields, e.g. --data '{\"filesRead\": 42}'",
    );
  }
  if ('type' in json.value)
    throw new InvalidInputError('--data must not contain "type": the event type is the <EVENT> argument');
  return json.value as Record<string, unknown>;
}

export function registerEvent(program: Command, io: CliIo): void {
  program
    .command('event')
    .description(
      "report progress: send an event to a team's lifecycle (validated against its schema and current state)",
    )
    .argument(
      '<EVENT>',
      'event type, e.g. PLAN_READY, SCAN_COMPLETE, FAIL (see the lifecycle tables in docs/lifecycles.md)',
    )
    .option('--team <team>', 'team id (default: $FED_TEAM or the workspace you are in)')
    .option('--data <json>', 'event fields as a JSON object, e.g. \'{"filesRead": 42}\'')
    .option('--json', 'print the result as JSON')
    .action(async (type: string, options: { team?: string; data?: string; json?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const data = parseData(options.data);
      // No workspace check here: the backend refuses a lifecycle write where fed must not write (a team on
      // another machine of a JetStream federation needs none here).
      const registry = await ctx.fed.backend.registry.read();
      const team = getTeam(registry, requireTeam(options.team, ctx, 'fed event --team <team> <EVENT>'));
      // A team's agent reports its own progress only (the reports go out as that team).
      assertActsAsCaller(registry, ctx.team, team.domainId, 'team (--team)');
      // Launched with an inspected launch: this process's transitions go to the launcher's inspection log too.
      const result = await reportInspectedEvent(
        ctx.fed,
        team,
        { ...data, type },
        ctx.config.config,
        io.env,
        (warning) => io.stderr(`warning: ${warning}\n`),
      );
      for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
      const line = result.steps[0]?.line;
      if (options.json)
        return printJson(io, { team: team.domainId, event: type, from: line?.from, to: line?.to, seq: line?.seq });
      io.stdout(eventLine(team.domainId, type, result));
    });
}
