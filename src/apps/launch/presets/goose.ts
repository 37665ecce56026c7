import { quote } from 'shell-quote';
import { classifyError } from './classify-error.js';
import { flag, num, obj, str, type AgentPreset } from './agent-preset.js';

/**
 * Goose: `goose run -i <prompt file> --output-format stream-json` in auto mode (`GOOSE_MODE=auto`), turn
 * cap `--max-turns`. Goose resumes a session by name, so the launcher names it (`-n fed-<team>-…`) and
 * that name is the session id — `GOOSE_DISABLE_SESSION_NAMING=true` keeps Goose from renaming it (and
 * from spending a model call on that); a resume is `--resume -n <name>`. Events: `message` (assistant
 * messages are turns), `error`, `complete` (input and output tokens since goose#8910; before, only
 * `total_tokens`, the last turn's context, kept as the input tokens when nothing else is there). fed's
 * MCP server is a stdio extension of this session (`--with-extension "fed:<fed> mcp"`, always named: an
 * unnamed one takes its program's name); it gets its environment from the agent's, FED_ROOT and
 * FED_TEAM included.
 */
export const goosePreset: AgentPreset = {
  name: 'goose',
  programs: ['goose'],
  // Its provider is whichever it is configured with: none until the config's allow list names it.
  providerHosts: [],
  homeFiles: ['.config/goose/config.yaml', '.config/goose/secrets.yaml'],
  stream: 'json',
  resumable: true,
  nativeLimits: { maxTurns: true, maxCostUsd: false },
  takesMcp: true,
  cli: {
    versionArgs: ['--version'],
    helps: [
      {
        args: ['run', '--help'],
        flags: ['-i', '-n', '--resume', '--output-format', '--max-turns', '--with-extension'],
      },
    ],
    install: 'see https://github.com/aaif-goose/goose (goose-cli installer or release binary)',
  },
  command: (run) => {
    const name = run.resumeSessionId ?? run.newSessionName;
    return {
      argv: [
        ...run.program,
        'run',
        '-i',
        run.promptFile,
        '-n',
        name,
        ...(run.resumeSessionId ? ['--resume'] : []),
        '--output-format',
        'stream-json',
        ...flag('--max-turns', run.limits.maxTurns),
        ...flag('--with-extension', run.mcp && `${run.mcp.name}:${quote([run.mcp.command, ...run.mcp.args])}`),
        ...run.args,
      ],
      stdin: null,
      env: {
        GOOSE_MODE: 'auto',
        GOOSE_DISABLE_SESSION_NAMING: 'true',
        ...(run.model ? { GOOSE_MODEL: run.model } : {}),
      },
      sessionId: name,
    };
  },
  onEvent(event, stats) {
    if (event.type === 'message' && obj(event.message).role === 'assistant') stats.turns = (stats.turns ?? 0) + 1;
    else if (event.type === 'error')
      stats.error = classifyError(str(event.error) ?? str(obj(event.error).message) ?? 'error');
    else if (event.type === 'complete') {
      stats.final = stats.error ?? { outcome: 'completed', message: null };
      const input = num(event.input_tokens);
      const output = num(event.output_tokens);
      stats.inputTokens = input ?? (output === null ? num(event.total_tokens) : null) ?? stats.inputTokens;
      stats.outputTokens = output ?? stats.outputTokens;
    }
  },
};
