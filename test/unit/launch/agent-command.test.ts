import { describe, expect, it } from 'vitest';
import { type LaunchContext, validateConfig } from 'fed/testing';
import { agentCommand } from '../../../src/apps/launch/prepare/agent-command.js';

const config = validateConfig({}, 'federate.config.json').config;
const context = { team: 'docs', workspace: '/tmp/fed-nowhere/.fed/teams/docs', state: 'preparing' } as LaunchContext;

describe('the agent command of a run', () => {
  it('picks the preset from the program name, else custom; an explicit preset wins', () => {
    expect(agentCommand(context, { config, agent: '/opt/tools/bin/codex' }, null, '/p.md', 'prompt').preset.name).toBe(
      'codex',
    );
    expect(agentCommand(context, { config, agent: 'npx claude' }, null, '/p.md', 'prompt').preset.name).toBe('custom');
    expect(
      agentCommand(
        context,
        { config, agent: 'npx claude', preset: 'claude' },
        null,
        '/p.md',
        'prompt',
      ).command.argv.slice(0, 4),
    ).toEqual(['npx', 'claude', '-p', 'prompt']);
    const configured = { ...config, agentCommand: 'my-claude', agent: { ...config.agent, preset: 'claude' as const } };
    expect(agentCommand(context, { config: configured }, null, '/p.md', 'prompt').preset.name).toBe('claude');
  });

  it('refuses a prompt too long to pass as one argument, saying what to do', () => {
    expect(() => agentCommand(context, { config, agent: 'claude' }, null, '/p.md', 'x'.repeat(200_000))).toThrow(
      /the prompt \(200000 bytes\) is too long to pass to claude as an argument; shorten the mission/,
    );
    // A CLI that reads the prompt from a file takes any size.
    expect(
      agentCommand(context, { config, agent: 'aider' }, null, '/p.md', 'x'.repeat(200_000)).command.argv,
    ).toContain('/p.md');
  });

  it('refuses a prompt with a NUL byte as an argument (no process can take it), saying what to do', () => {
    for (const agent of ['claude', 'my-agent --task {prompt}'])
      expect(() => agentCommand(context, { config, agent }, null, '/p.md', 'do\u0000this')).toThrow(
        expect.objectContaining({ code: 'PROMPT_NUL_BYTE', message: expect.stringMatching(/contains a NUL byte/) }),
      );
    // Passed as a file, the prompt reaches the agent as it is.
    expect(agentCommand(context, { config, agent: 'aider' }, null, '/p.md', 'do\u0000this').command.argv).toContain(
      '/p.md',
    );
  });

  it('custom: {prompt} and {promptFile} are replaced verbatim, even when the prompt holds $& or $$', () => {
    const prompt = "echo $$ and $& and $' here";
    const argv = agentCommand(
      context,
      { config, agent: 'my-agent --task {prompt} --notes={promptFile}' },
      null,
      '/p.md',
      prompt,
    ).command.argv;
    expect(argv).toEqual(['my-agent', '--task', prompt, '--notes=/p.md']);
  });

  it("a relative program is found from the caller's directory for --agent, from the federation root for agentCommand", () => {
    const rooted = { ...context, root: '/fed' } as LaunchContext;
    expect(
      agentCommand(rooted, { config, agent: './bin/agent', cwd: '/home/me' }, null, '/p.md', 'p').command.argv[0],
    ).toBe('/home/me/bin/agent');
    expect(
      agentCommand(rooted, { config: { ...config, agentCommand: 'tools/agent' } }, null, '/p.md', 'p').command.argv[0],
    ).toBe('/fed/tools/agent');
    expect(agentCommand(rooted, { config, agent: 'claude' }, null, '/p.md', 'p').command.argv[0]).toBe('claude');
  });

  it('records the command with the prompt replaced by the file the run keeps it in; the agent gets it whole', () => {
    const prompt = '# Mission for team docs\n\nDocument $& the project';
    const claude = agentCommand(context, { config, agent: 'claude' }, null, '/p.md', prompt);
    const kept = `${context.workspace}/.fed/logs/runs/${claude.runId}.prompt.md`;
    expect(claude).toMatchObject({ prompt, promptPath: kept });
    expect(claude.command.argv.slice(0, 3)).toEqual(['claude', '-p', prompt]);
    expect(claude.recordedArgv.slice(0, 3)).toEqual([
      'claude',
      '-p',
      `<prompt: .fed/logs/runs/${claude.runId}.prompt.md>`,
    ]);
    // Inside a word ({prompt}), and not at all when the prompt goes through stdin or a file.
    const custom = agentCommand(context, { config, agent: 'my-agent --task={prompt}' }, null, '/p.md', prompt);
    expect(custom.recordedArgv).toEqual(['my-agent', `--task=<prompt: .fed/logs/runs/${custom.runId}.prompt.md>`]);
    const codex = agentCommand(context, { config, agent: 'codex' }, null, '/p.md', prompt);
    expect(codex.recordedArgv).toEqual(codex.command.argv);
    expect(codex.command.stdin).toBe(prompt);
  });
});

describe("fed's MCP server for a run (agent.mcp)", () => {
  const launchBin = `${context.workspace}/.fed/launch/bin/fed`;
  const withMcp = (mcp: boolean | 'strict') => ({ ...config, agent: { ...config.agent, mcp } });
  const configured = (agent: string, mcp: boolean | 'strict' = true) => ({
    ...withMcp(mcp),
    agentCommand: agent,
  });
  const commandOf = (agent: string, mcp: boolean | 'strict' = true, sandboxed = false) =>
    agentCommand({ ...context, root: '/fed' }, { config: configured(agent, mcp) }, null, '/p.md', 'prompt', {
      sandboxed,
    }).command;

  it('claude: --mcp-config names a JSON file of the run with `<the team fed> mcp` as the team, loaded up front; strict on request', () => {
    const command = commandOf('claude');
    const file = command.argv[command.argv.indexOf('--mcp-config') + 1]!;
    expect(file).toBe(`${context.workspace}/.fed/launch/mcp-claude.json`);
    expect(command.argv).not.toContain('--strict-mcp-config');
    expect(JSON.parse(command.files![file]!)).toEqual({
      mcpServers: {
        fed: {
          type: 'stdio',
          command: launchBin,
          args: ['mcp'],
          env: { FED_ROOT: '/fed', FED_TEAM: 'docs' },
          // Its tools in the prompt from the first turn, not behind ToolSearch.
          alwaysLoad: true,
        },
      },
    });
    expect(commandOf('claude', 'strict').argv).toContain('--strict-mcp-config');
  });

  it('sandboxed, the server goes through the broker: the broker and its token inherited (it may be on the loopback), never written', () => {
    const claude = commandOf('claude', true, true);
    const json = Object.values(claude.files!)[0]!;
    expect(JSON.parse(json).mcpServers.fed.env).toEqual({ FED_ROOT: '/fed', FED_TEAM: 'docs' });
    expect(json).not.toContain('FED_BROKER');
    // Codex passes a server only the variables it is told: the broker and its token by name.
    const codex = commandOf('codex', true, true).argv;
    expect(codex).toContain('mcp_servers.fed.env_vars=["FED_BROKER","FED_BROKER_TOKEN"]');
  });

  it('codex: -c mcp_servers.fed.… overrides after exec, in TOML', () => {
    const argv = commandOf('codex').argv;
    expect(argv.slice(0, 2)).toEqual(['codex', 'exec']);
    expect(argv.slice(2, 8)).toEqual([
      '-c',
      `mcp_servers.fed.command=${JSON.stringify(launchBin)}`,
      '-c',
      'mcp_servers.fed.args=["mcp"]',
      '-c',
      'mcp_servers.fed.env={FED_ROOT="/fed",FED_TEAM="docs"}',
    ]);
    expect(argv.at(-1)).toBe('-');
  });

  it('copilot, opencode and goose get it their way; gemini, aider and custom commands do not', () => {
    const copilot = commandOf('copilot');
    const at = copilot.argv.indexOf('--additional-mcp-config');
    expect(copilot.argv[at + 1]).toBe(`@${context.workspace}/.fed/launch/mcp-copilot.json`);
    expect(JSON.parse(Object.values(copilot.files!)[0]!).mcpServers.fed).toMatchObject({ tools: ['*'] });
    expect(JSON.parse(commandOf('opencode').env.OPENCODE_CONFIG_CONTENT!)).toEqual({
      mcp: {
        fed: {
          type: 'local',
          command: [launchBin, 'mcp'],
          environment: { FED_ROOT: '/fed', FED_TEAM: 'docs' },
          enabled: true,
        },
      },
    });
    const goose = commandOf('goose').argv;
    expect(goose[goose.indexOf('--with-extension') + 1]).toBe(`fed:${launchBin} mcp`);
    for (const agent of ['gemini', 'aider', 'my-agent {prompt}']) {
      const command = commandOf(agent);
      expect(command.argv.join(' ')).not.toMatch(/mcp/);
      expect(command.files ?? {}).toEqual({});
    }
  });

  it('agent.mcp false: no MCP flags, files or settings for any CLI', () => {
    for (const agent of ['claude', 'codex', 'copilot', 'opencode', 'goose']) {
      const command = commandOf(agent, false);
      expect(command.argv.join(' ')).not.toMatch(/mcp/);
      expect(command.files ?? {}).toEqual({});
      expect(command.env.OPENCODE_CONFIG_CONTENT).toBeUndefined();
    }
  });
});
