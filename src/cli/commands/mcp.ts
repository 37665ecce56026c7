import type { Command } from 'commander';
import { createTeamServer } from '../../apps/mcp/team-server.js';
import { getTeam } from '../../core/find-team.js';
import { assertActsAsCaller } from '../../core/resolve-party.js';
import { federationContext, type CliIo } from '../io.js';
import { serveUntilClosed } from '../mcp-serve.js';
import { requireTeam } from '../team-option.js';

export function registerMcp(program: Command, io: CliIo): void {
  program
    .command('mcp')
    .description(
      "serve a team's fed tools (whoami, inbox, ack, send, event) to its agent over MCP on stdin/stdout, until stdin closes",
    )
    .option('--team <team>', 'team id (default: $FED_TEAM or the workspace you are in)')
    .option(
      '--meta',
      "serve meta's tools instead (status, needs-you, inbox, send, review, pause/resume/retry), for a person's own MCP client",
    )
    .action(async (options: { team?: string; meta?: boolean }, command: Command) => {
      const ctx = federationContext(command, io);
      const registry = await ctx.fed.backend.registry.read();
      // Meta's tools are loaded only for --meta: a team's server never needs them.
      if (options.meta) return (await import('../mcp-meta.js')).serveMeta(ctx, registry, options.team);
      const team = getTeam(registry, requireTeam(options.team, ctx, 'fed mcp --team <team>'));
      // The server acts as its team: an agent gets its own team's tools only.
      assertActsAsCaller(registry, ctx.team, team.domainId, 'team (--team)');
      await serveUntilClosed(() => createTeamServer(ctx.fed, team));
    });
}
