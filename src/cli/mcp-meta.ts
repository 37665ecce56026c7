import { createMetaServer } from '../apps/mcp/meta-server.js';
import { serveStdio } from '../apps/mcp/serve-stdio.js';
import { InvalidInputError } from '../core/errors.js';
import { assertActsAsCaller } from '../core/resolve-party.js';
import { META } from '../core/schema/common.js';
import type { Registry } from '../core/schema/registry.js';
import type { CommandContext } from './io.js';
import { Interrupt } from './interrupt.js';

/**
 * `fed mcp --meta`: meta's tools for a person's own MCP client, until stdin closes. Meta acts for every
 * team, so a team may not run it: refused in a team's workspace or with $FED_TEAM, as `--from meta` is.
 */
export async function serveMeta(ctx: CommandContext, registry: Registry, team: string | undefined): Promise<void> {
  if (team !== undefined) throw new InvalidInputError('--meta and --team exclude each other: meta acts for every team');
  assertActsAsCaller(registry, ctx.team, META, 'fed mcp --meta');
  const served = await createMetaServer(ctx.fed);
  // SIGTERM or Ctrl-C ends it between requests, like stdin closing.
  const interrupt = new Interrupt();
  try {
    await serveStdio(served.server, { stdin: process.stdin, stdout: process.stdout }, interrupt.signal);
  } finally {
    served.close();
    interrupt.dispose();
  }
}
