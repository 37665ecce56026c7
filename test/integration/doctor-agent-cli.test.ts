import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation, runDoctor } from 'fed';
import { runFed } from '../helpers/fed-cli.js';
import { NODE_SUPPORT_OUTPUT, NODE_SUPPORT_WARNINGS } from '../helpers/node-support.js';
import { NO_SERVER_LINE } from '../helpers/doctor-output.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The fake agent CLIs (named claude, codex, …) and node, which they run on. */
const FAKE_BIN = fileURLToPath(new URL('../fixtures/agents/bin', import.meta.url));
const NODE_BIN = dirname(process.execPath);

/** A federation whose config names `agent` (agentCommand and agent.preset). */
function federationWithAgent(agent: { command: string; preset?: string }): string {
  const root = tempDir();
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  const file = join(root, 'federate.config.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  config.agentCommand = agent.command;
  if (agent.preset) config.agent = { preset: agent.preset };
  writeFileSync(file, JSON.stringify(config));
  return root;
}

/** That federation, doctored with `env`. */
async function doctor(agent: { command: string; preset?: string }, env: NodeJS.ProcessEnv, timeoutMs?: number) {
  const root = federationWithAgent(agent);
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false', ...env } });
  return runDoctor(fed, { agentCliTimeoutMs: timeoutMs });
}

describe('fed doctor checks the configured agent CLI', () => {
  it.each(['claude', 'codex', 'gemini', 'copilot', 'opencode', 'goose', 'aider'])(
    '%s: on PATH, its version noted, every flag its preset passes listed by its help',
    async (cli) => {
      const report = await doctor({ command: cli }, { PATH: [FAKE_BIN, NODE_BIN].join(delimiter) });
      expect(report).toMatchObject({ findings: [], warnings: NODE_SUPPORT_WARNINGS, healthy: true });
      expect(report.notes).toEqual([
        expect.stringMatching(new RegExp(`^agent CLI ${cli} \\(preset ${cli}\\): .*\\d+\\.\\d+`)),
        // As root (the tests here, a container) the CLI's root rule, and how fed runs it there.
        ...(cli === 'claude' && process.getuid?.() === 0
          ? [expect.stringMatching(/^agent CLI claude as root: Claude Code refuses to bypass .*IS_SANDBOX=1.*dontAsk/)]
          : []),
      ]);
    },
  );

  it('warns, naming the flag, the help and the version, when a help no longer lists a flag the preset passes', async () => {
    const report = await doctor(
      { command: 'codex' },
      { PATH: [FAKE_BIN, NODE_BIN].join(delimiter), FAKE_HELP_OMIT: '--skip-git-repo-check' },
    );
    // Both commands the preset runs: a new session's and a resume's.
    expect(report.warnings).toEqual([
      ...NODE_SUPPORT_WARNINGS,
      'codex exec --help does not list --skip-git-repo-check: the preset may be out of date for codex 0.169.0',
      'codex exec resume --help does not list --skip-git-repo-check: the preset may be out of date for codex 0.169.0',
    ]);
    // A warning, not a broken federation.
    expect(report).toMatchObject({ findings: [], healthy: true });
  });

  it('fed doctor prints the version as a note and the flag as a warning, and exits 0', async () => {
    const root = federationWithAgent({ command: 'codex' });
    const result = await runFed(['--root', root, 'doctor'], {
      env: { PATH: [FAKE_BIN, NODE_BIN].join(delimiter), FAKE_HELP_OMIT: '--skip-git-repo-check' },
    });
    expect(result, result.stderr).toMatchObject({
      code: 0,
      stdout:
        'note: agent CLI codex (preset codex): codex-cli 0.169.0\n' +
        NODE_SUPPORT_OUTPUT +
        'warning: codex exec --help does not list --skip-git-repo-check: the preset may be out of date for codex 0.169.0\n' +
        'warning: codex exec resume --help does not list --skip-git-repo-check: the preset may be out of date for codex 0.169.0\n' +
        NO_SERVER_LINE +
        `no problems found in ${root}\n`,
    });
  });

  it('a program that is not on PATH is a finding that says how to install it', async () => {
    const report = await doctor({ command: 'codex-not-installed-here', preset: 'codex' }, { PATH: NODE_BIN });
    expect(report.healthy).toBe(false);
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'agent-cli',
        path: 'codex-not-installed-here',
        problem: expect.stringContaining('codex-not-installed-here (agentCommand, preset codex) is not on PATH'),
        fix: expect.stringContaining('npm install -g @openai/codex'),
      }),
    ]);
  });

  it("each team's own agent is checked too, once per CLI, its findings naming the team's field", async () => {
    const root = federationWithAgent({ command: 'claude' });
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const teams = {
      docs: { command: 'codex' },
      api: { command: 'codex', limits: { maxTurns: 5 } },
      web: { command: 'gemini-not-installed-here', preset: 'gemini' },
      ops: { limits: { maxTurns: 3 } },
    };
    writeFileSync(file, JSON.stringify({ ...config, agent: { teams } }));
    const fed = openFederation(root, {
      env: { FED_TELEMETRY_ENABLED: 'false', PATH: [FAKE_BIN, NODE_BIN].join(delimiter) },
    });
    const report = await runDoctor(fed);
    expect(report.notes.filter((note) => /^agent CLI \w+ \(/.test(note))).toEqual([
      expect.stringMatching(/^agent CLI claude \(preset claude\): /),
      // docs and api share one CLI: checked once, under the first team that names it.
      expect.stringMatching(/^agent CLI codex \(preset codex, agent\.teams\.docs\.command\): codex-cli/),
    ]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        check: 'agent-cli',
        problem: expect.stringContaining(
          'gemini-not-installed-here (agent.teams.web.command, preset gemini) is not on PATH',
        ),
        fix: expect.stringContaining('or set agent.teams.web.command in federate.config.json'),
      }),
    ]);
  });

  it('a CLI that never answers is stopped after the timeout, with a warning, and doctor goes on', async () => {
    const bin = tempDir();
    const gemini = join(bin, 'gemini');
    writeFileSync(gemini, '#!/bin/sh\nsleep 60 &\nexec sleep 60\n');
    chmodSync(gemini, 0o755);
    const started = Date.now();
    const report = await doctor({ command: gemini }, { PATH: ['/usr/bin', '/bin'].join(delimiter) }, 300);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(report.warnings).toEqual([
      ...NODE_SUPPORT_WARNINGS,
      'gemini --version did not answer within 0.3 s; it was stopped',
      'gemini --help did not answer within 0.3 s; it was stopped',
    ]);
  });

  it('the built-in agent and custom commands are not probed', async () => {
    for (const command of ['fed-agent', 'my-own-agent --task {prompt}']) {
      const report = await doctor({ command }, { PATH: NODE_BIN });
      expect(report).toMatchObject({ findings: [], notes: [], warnings: NODE_SUPPORT_WARNINGS, healthy: true });
    }
  });

  it('notes each team whose network is open: its sandboxed agent can reach any host', async () => {
    const root = federationWithAgent({ command: 'fed-agent' });
    const file = join(root, 'federate.config.json');
    const config = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    writeFileSync(file, JSON.stringify({ ...config, agent: { teams: { docs: { network: 'open' } } } }));
    await onboardTeam(openFederation(root), { domain: 'docs' });
    await onboardTeam(openFederation(root), { domain: 'api' });
    const report = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }));
    expect(report.notes.filter((note) => note.includes('network "open"'))).toEqual([
      'team "docs": network "open" — a sandboxed agent of it can reach any host (agent.network)',
    ]);
  });
});
