import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { federationWithMission, inDocsWorkspace } from '../helpers/launch-federation.js';

/**
 * A launched agent with fed's MCP server (issue 28), against the built CLI: a fake Claude that talks MCP
 * (test/fixtures/agents/mcp-claude.mjs) starts `fed mcp` from the `--mcp-config` fed gave it and does the
 * whole deliverable lifecycle through the tools alone — with and without the sandbox, where the server
 * goes through the launcher's broker. Other presets get the server their way; `agent.mcp: false` none.
 */
const fixture = (path: string) => fileURLToPath(new URL(`../fixtures/agents/${path}`, import.meta.url));

async function launch(agentCommand: string, agent: Record<string, unknown>) {
  const { root } = await federationWithMission();
  const configFile = join(root, 'federate.config.json');
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(configFile, JSON.stringify({ ...config, agentCommand, agent }));
  const log = inDocsWorkspace(root, 'calls.jsonl');
  const result = await runFed(['--root', root, 'launch', '--team', 'docs', '--json'], {
    env: { FAKE_CLI_LOG: log },
    timeoutMs: 120_000,
  });
  const calls = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
  return { root, result, calls };
}

describe('a launched agent with fed mcp (built CLI)', () => {
  it.each([false, true])(
    'a fake claude does the whole deliverable lifecycle through fed_* tools only (sandbox: %s)',
    async (sandbox) => {
      const { root, result, calls } = await launch(fixture('mcp/claude'), { sandbox });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const launched = JSON.parse(result.stdout) as {
        outcome: string;
        state: string;
        lastRun: { outcome: string; sandboxed: boolean; sessionId: string };
      };
      expect(launched).toMatchObject({ outcome: 'complete', state: 'complete' });
      expect(launched.lastRun).toMatchObject({ outcome: 'completed', sandboxed: sandbox });
      // It was given the team's server: fed's own shim, as the team, through the broker when sandboxed.
      const [given, ...tools] = calls;
      const workspace = join(root, '.fed', 'teams', 'docs');
      expect(given!.server).toEqual({
        type: 'stdio',
        command: join(workspace, '.fed', 'launch', 'bin', 'fed'),
        args: ['mcp'],
        // The broker (sandboxed) is inherited with its token: on the sandbox's loopback, never written down.
        env: { FED_ROOT: root, FED_TEAM: 'docs' },
        // Its tools offered up front, not behind Claude Code's ToolSearch.
        alwaysLoad: true,
      });
      // Tools only, in the lifecycle's order, none refused.
      expect(tools.map((call) => [call.tool, (call.input as { type?: string }).type ?? null, call.isError])).toEqual([
        ['fed_whoami', null, false],
        ['fed_event', 'PLAN_READY', false],
        ['fed_event', 'SCAN_COMPLETE', false],
        ['fed_event', 'INSIGHTS_READY', false],
        ['fed_event', 'DOCUMENT_WRITTEN', false],
      ]);
      // The lifecycle journal has them, with their data.
      const journal = await runFed(['--root', root, 'log', '--team', 'docs', '--json']);
      const text = journal.stdout;
      const at = ['PLAN_READY', 'SCAN_COMPLETE', 'INSIGHTS_READY', 'DOCUMENT_WRITTEN'].map((type) =>
        text.indexOf(type),
      );
      expect(at.every((index) => index >= 0)).toBe(true);
      expect([...at].sort((a, b) => a - b)).toEqual(at);
      expect(readFileSync(join(workspace, 'deliverable.md'), 'utf8')).toContain('# Report');
    },
    180_000,
  );

  it('codex gets the server as -c mcp_servers.fed.… overrides; agent.mcp false gives no MCP flags', async () => {
    const { root, result, calls } = await launch(fixture('bin/codex'), { sandbox: false });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const args = calls[0]!.args as string[];
    const fed = join(root, '.fed', 'teams', 'docs', '.fed', 'launch', 'bin', 'fed');
    expect(args.slice(0, 7)).toEqual([
      'exec',
      '-c',
      `mcp_servers.fed.command=${JSON.stringify(fed)}`,
      '-c',
      'mcp_servers.fed.args=["mcp"]',
      '-c',
      `mcp_servers.fed.env={FED_ROOT=${JSON.stringify(root)},FED_TEAM="docs"}`,
    ]);
    for (const cli of ['bin/codex', 'bin/claude']) {
      const off = await launch(fixture(cli), { sandbox: false, mcp: false });
      expect(off.result.code, off.result.stdout + off.result.stderr).toBe(0);
      expect((off.calls[0]!.args as string[]).join(' ')).not.toMatch(/mcp/);
    }
  }, 180_000);
});
