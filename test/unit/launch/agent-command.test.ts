import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../src/infra/config/load-config.js';
import { type LaunchContext } from '../../../src/core/schema/launch-context.js';
import { agentCommand } from '../../../src/apps/launch/agent-command.js';

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
