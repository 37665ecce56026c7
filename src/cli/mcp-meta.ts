import { createMetaServer } from '../apps/mcp/meta-server.js';
import { InvalidInputError } from '../core/errors.js';
import { assertActsAsCaller } from '../core/resolve-party.js';
import { META } from '../core/schema/common.js';
import type { Registry } from '../core/schema/registry.js';
import type { CommandContext } from './io.js';
import { serveUntilClosed } from './mcp-serve.js';

/**
 * `fed mcp --meta`: meta's tools for a person's own MCP client, until stdin closes. Meta acts for every
 * team, so a team may not run it: refused in a team's workspace or with $FED_TEAM, as `--from meta` is.
 */
export async function serveMeta(ctx: CommandContext, registry: Registry, team: string | undefined): Promise<void> {
  if (team !== undefined) throw new InvalidInputError('--meta and --team exclude each other: meta acts for every team');
  assertActsAsCaller(registry, ctx.team, META, 'fed mcp --meta');
  await serveUntilClosed(() => createMetaServer(ctx.fed));
}
