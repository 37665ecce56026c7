import { basename, isAbsolute, resolve } from 'node:path';
import { FedError } from '../../core/errors.js';
import type { PendingFinding } from '../../ports/doctor-finding.js';
import { runCaptured, type CapturedRun } from '../../infra/process/run-captured.js';
import type { Federation } from '../../engine/context.js';
import type { AgentPreset } from '../launch/presets/agent-preset.js';
import { choosePreset } from '../launch/presets/catalog.js';
import { splitCommand } from '../../core/split-command.js';
import type { AgentPresetName } from '../../core/schema/config.js';
import { teamAgent } from '../launch/team-agent.js';

/** How long the CLI may take to print its version or its help before doctor gives up on it. */
export const AGENT_CLI_TIMEOUT_MS = 10_000;

export interface AgentCliChecks {
  findings: PendingFinding[];
  /** Worth acting on, not a broken federation: a flag the help no longer lists, a CLI that did not answer. */
  warnings: string[];
  notes: string[];
}

/** One agent command to check, and the config field that names it. */
interface AgentToCheck {
  command: string;
  /** Its preset as fed launch chooses it (undefined: from the program's name). */
  preset: AgentPresetName | undefined;
  field: string;
}

/**
 * The agent CLIs the config names — the federation's (`agentCommand`, its preset from `agent.preset` or
 * the program's name) and each team's own (`agent.teams.<id>.command|preset`) — each checked once however
 * many teams run it: that it can be run at all (a finding, with how to install it, when not), its
 * version, and whether each of its helps the preset relies on still lists each flag the preset passes — a
 * flag gone from it means the preset may no longer fit the installed release (a warning naming the flag).
 * Skipped for the built-in agent and custom commands, whose flags fed does not choose. Each probe is an
 * argument array in the root, with bounded time and output, in a process group of its own (stopped whole
 * when it times out): doctor never hangs on a CLI.
 */
export async function checkAgentCli(fed: Federation, timeoutMs = AGENT_CLI_TIMEOUT_MS): Promise<AgentCliChecks> {
  const checked = await Promise.all(agentsToCheck(fed).map((agent) => checkOneAgentCli(fed, agent, timeoutMs)));
  return {
    findings: checked.flatMap((one) => one.findings),
    warnings: checked.flatMap((one) => one.warnings),
    notes: checked.flatMap((one) => one.notes),
  };
}

/** The federation's agent, then each team's own that differs from every one before it. */
function agentsToCheck(fed: Federation): AgentToCheck[] {
  const { config } = fed;
  const agents: AgentToCheck[] = [{ command: config.agentCommand, preset: config.agent.preset, field: 'agentCommand' }];
  for (const [id, own] of Object.entries(config.agent.teams)) {
    if (own.command === undefined && own.preset === undefined) continue;
    let agent: AgentToCheck;
    try {
      const { command, preset } = teamAgent(config, id);
      agent = { command: command.value, preset: preset.value, field: command.from };
    } catch (error) {
      // A command that does not split: checkOneAgentCli reports it, naming the team's field.
      if (!(error instanceof FedError)) throw error;
      agent = { command: own.command!, preset: own.preset, field: `agent.teams.${id}.command` };
    }
    if (!agents.some((other) => other.command === agent.command && other.preset === agent.preset)) agents.push(agent);
  }
  return agents;
}

async function checkOneAgentCli(fed: Federation, agent: AgentToCheck, timeoutMs: number): Promise<AgentCliChecks> {
  const checks: AgentCliChecks = { findings: [], warnings: [], notes: [] };
  let program: string[];
  try {
    program = splitCommand(agent.command, agent.field);
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    checks.findings.push({
      check: 'agent-cli',
      path: fed.configFile.file,
      problem: error.message,
      fix: `fix ${agent.field} in the config`,
    });
    return checks;
  }
  const preset = choosePreset(program[0]!, agent.preset);
  if (!preset.cli) return checks;
  const [file, ...words] = program;
  // Like fed launch: a relative path in the command is relative to the federation root.
  const executable = file!.includes('/') && !isAbsolute(file!) ? resolve(fed.root, file!) : file!;
  const run = (args: readonly string[]) =>
    runCaptured([executable, ...words, ...args], {
      cwd: fed.root,
      env: fed.env,
      timeoutMs,
      ownGroup: true,
      maxStdoutBytes: 256 * 1024,
      stderrTailBytes: 16 * 1024,
    });
  const [version, ...helps] = await Promise.all([
    run(preset.cli.versionArgs),
    ...preset.cli.helps.map((help) => run(help.args)),
  ]);
  const unrunnable = [version, ...helps].find((probe) => probe.error)?.error;
  if (unrunnable) {
    checks.findings.push(notRunnable(fed, agent.field, preset, executable, unrunnable));
    return checks;
  }
  const name = basename(executable);
  const ask = (args: readonly string[]) => [name, ...args].join(' ');
  const versionText = answered(version, ask(preset.cli.versionArgs), timeoutMs, checks.warnings);
  const versionNumber = versionText?.match(/\d+(\.\d+)+[\w.+-]*/)?.[0] ?? versionText;
  const whose = agent.field === 'agentCommand' ? '' : `, ${agent.field}`;
  if (versionText) checks.notes.push(`agent CLI ${name} (preset ${preset.name}${whose}): ${versionText}`);
  if (preset.cli.asRoot && process.getuid?.() === 0)
    checks.notes.push(`agent CLI ${name} as root: ${preset.cli.asRoot}`);
  for (const [i, { args, flags }] of preset.cli.helps.entries()) {
    const help = helps[i]!;
    if (answered(help, ask(args), timeoutMs, checks.warnings) === undefined) continue;
    for (const flag of unlistedFlags(flags, `${help.stdout}\n${help.stderr}`)) {
      checks.warnings.push(
        `${ask(args)} does not list ${flag}: the preset may be out of date for ${name}${versionNumber ? ` ${versionNumber}` : ''}`,
      );
    }
  }
  return checks;
}

/** The first line the probe printed, or undefined (with a warning saying why) when it did not answer. */
function answered(probe: CapturedRun, asked: string, timeoutMs: number, warnings: string[]): string | undefined {
  if (probe.stopped === 'timeout') {
    warnings.push(`${asked} did not answer within ${timeoutMs / 1000} s; it was stopped`);
    return undefined;
  }
  const text = `${probe.stdout}\n${probe.stderr}`;
  if (probe.code !== 0) {
    const said = text.trim().split('\n').at(-1)?.slice(0, 200);
    warnings.push(`${asked} failed (${probe.signal ?? `exit ${probe.code}`})${said ? `: ${said}` : ''}`);
    return undefined;
  }
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find(Boolean)
      ?.slice(0, 200) ?? ''
  );
}

/** The flags the help does not list — as a word of their own, so `-m` is not found inside `--max-turns`. */
function unlistedFlags(flags: readonly string[], help: string): string[] {
  return flags.filter((flag) => {
    const escaped = flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return !new RegExp(`(^|[^\\w-])${escaped}(?![\\w-])`, 'm').test(help);
  });
}

function notRunnable(
  fed: Federation,
  field: string,
  preset: AgentPreset,
  executable: string,
  error: NodeJS.ErrnoException,
): PendingFinding {
  const where = executable.includes('/') ? 'does not exist' : 'is not on PATH';
  return {
    check: 'agent-cli',
    path: executable,
    problem:
      error.code === 'ENOENT'
        ? `the agent CLI ${executable} (${field}, preset ${preset.name}) ${where}; fed launch cannot start it`
        : `the agent CLI ${executable} (${field}, preset ${preset.name}) cannot be run: ${error.message}`,
    fix: `install it (${preset.cli!.install}) or set ${field} in ${basename(fed.configFile.file)} to the program's path`,
  };
}
