import type { McpServer } from './agent-preset.js';

/**
 * The JSON MCP configuration claude (`--mcp-config`) and copilot (`--additional-mcp-config @file`) read:
 * `{"mcpServers": {"fed": {"type": "stdio", "command", "args", "env"}}}`. Both start a server with the
 * agent's environment and `env` over it, so what `inherit` names reaches it without being written here.
 * `extra`: fields one CLI wants besides (copilot: which of the server's tools it may use; claude: its
 * tools loaded up front).
 */
export function mcpConfigJson(server: McpServer, extra: Record<string, unknown> = {}): string {
  const { name, command, args, env } = server;
  return `${JSON.stringify({ mcpServers: { [name]: { type: 'stdio', command, args, env, ...extra } } }, null, 2)}\n`;
}
