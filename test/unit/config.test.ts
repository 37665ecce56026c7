import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigValidationError } from 'fed';
import { deadlineTable, loadConfig, validateConfig } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigValidationError);
    expect((error as Error).name).toBe('ConfigValidationError');
    return (error as ConfigValidationError).problems.map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a ConfigValidationError');
}

const validate = (raw: unknown) => validateConfig(raw, 'federate.config.json');

describe('federate.config.json', () => {
  it('applies every default of docs/design/spec.md §2.3 to an empty object', () => {
    expect(validate({}).config).toEqual({
      agentCommand: 'fed-agent',
      agent: { args: [], limits: {}, sandbox: true, denyRead: [], fixAttempts: 2, mcp: true, teams: {} },
      telemetry: { enabled: true, collector: { endpoint: 'http://localhost:18888' } },
      playbookSkill: 'domain-playbook',
      deliverable: 'deliverable.md',
      federationReport: 'federation-report.md',
    });
  });

  it('keeps every field it is given', () => {
    const raw = {
      description: 'docs federation',
      federationName: 'acme',
      agentCommand: '/usr/local/bin/claude --print',
      agent: {
        preset: 'claude',
        args: ['--verbose'],
        model: 'sonnet',
        limits: { maxTurns: 40, maxCostUsd: 2.5, maxMinutes: 30, federationUsd: 100 },
        account: 'work',
        fixAttempts: 1,
        sandbox: false,
        denyRead: ['~/work/secrets', '/srv/keys', '.env'],
        mcp: 'strict',
        network: { provider: true, allow: ['*.example.com', 'paste.example:443', '127.0.0.1:8080', '10.0.0.5'] },
        teams: {
          docs: { network: 'none' },
          api: { network: 'open', sandbox: { allow: ['unix-sockets'] } },
          web: { sandbox: false },
        },
      },
      telemetry: { enabled: false, collector: { endpoint: 'http://collector:4318' } },
      chatConfig: { teamId: '5f2b1c3e-0000-4000-8000-000000000000', channelId: '19:abc123@thread.tacv2' },
      playbookSkill: 'my-playbook',
      deliverable: 'report.md',
      federationReport: 'summary.md',
      deliverableSchema: 'schemas/deliverable.json',
      importHook: 'hooks/init.ts',
    };
    expect(validate(raw).config).toEqual(raw);
  });

  it('checks the network policy of the federation and of each team, naming the entry and how to write it', () => {
    expect(
      problemsOf(() =>
        validate({
          agent: {
            network: { allow: ['*', 'evil-*.example.com', '*.com', '127.1', 'host:99999', 'a..b'] },
            teams: {
              docs: { network: 'closed' },
              'Bad Team': {},
              api: { network: { allow: ['x.example'], extra: 1 } },
            },
          },
        }),
      ),
    ).toEqual([
      'agent.network.allow[0]: "*": a wildcard is "*." before whole labels (like "*.example.com"); for any host use "open"',
      'agent.network.allow[1]: "evil-*.example.com": a wildcard is "*." before whole labels (like "*.example.com"); for any host use "open"',
      'agent.network.allow[2]: "*.com": "*.com" would match a whole top-level domain; name one below it',
      'agent.network.allow[3]: "127.1": a number in place of a name is an IP address in another form; write it as an IP address (like 127.0.0.1)',
      'agent.network.allow[4]: "host:99999": "99999" is not a port (1-65535)',
      'agent.network.allow[5]: "a..b": expected a host name (labels of letters, digits and hyphens), "*.<name>", or an IP address',
      'agent.teams.docs.network: expected "provider", "none", "open" or { "allow": ["host", "*.example.com", "host:port"] }, got "closed"',
      'agent.teams.api.network: unknown key(s) "extra"',
    ]);
    expect(problemsOf(() => validate({ agent: { teams: { 'Bad Team': { network: 'none' } } } }))).toEqual([
      'agent.teams.Bad Team: "Bad Team" is not a team id: expected a slug of lowercase letters, digits and single hyphens (like "docs-team")',
    ]);
  });

  it("checks a team's sandbox setting and the paths no agent reads, naming the entry and what it takes", () => {
    expect(
      problemsOf(() =>
        validate({
          agent: {
            denyRead: ['~alice/.ssh', ''],
            teams: {
              docs: { sandbox: 'off' },
              api: { sandbox: { allow: ['docker'] } },
              web: { sandbox: { deny: [] } },
            },
          },
        }),
      ),
    ).toEqual([
      'agent.denyRead[0]: expected a path — "~/…" in your home, absolute, or relative to the federation root (such as ".env") — got "~alice/.ssh"',
      'agent.denyRead[1]: expected a non-empty string, got an empty string',
      'agent.teams.docs.sandbox: expected true, false or { "allow": ["unix-sockets"] }, got "off"',
      'agent.teams.api.sandbox.allow[0]: expected one of unix-sockets, got "docker"',
      'agent.teams.web.sandbox.allow: expected an array, got nothing (the field is missing)',
      'agent.teams.web.sandbox: unknown key(s) "deny"',
    ]);
  });

  it('names the field of a network policy object that is wrong, and what it needs — not the whole object', () => {
    const problems = (network: unknown) => problemsOf(() => validate({ agent: { network } }));
    expect(problems({ allow: 'example.com' })).toEqual([
      'agent.network.allow: expected an array of hosts such as ["api.example.com"], got "example.com"',
    ]);
    expect(problems({ provider: true })).toEqual([
      'agent.network.allow: expected an array of hosts such as ["api.example.com"], got nothing (the field is missing; for the provider\'s hosts alone write "provider" in place of the object)',
    ]);
    expect(problems({ allow: ['127.0.0.1:4000'], provider: 'yes' })).toEqual([
      'agent.network.provider: expected true or false, got "yes"',
    ]);
    expect(problemsOf(() => validate({ agent: { teams: { docs: { network: { allow: [5] } } } } }))).toEqual([
      'agent.teams.docs.network.allow[0]: expected a host such as "api.example.com", got number 5',
    ]);
    // Of no branch's shape: the union's own message.
    for (const [network, got] of [
      [5, 'number 5'],
      [[], 'an array'],
    ] as const)
      expect(problems(network)).toEqual([
        `agent.network: expected "provider", "none", "open" or { "allow": ["host", "*.example.com", "host:port"] }, got ${got}`,
      ]);
  });

  it('checks the agent preset, its arguments and its limits', () => {
    expect(
      problemsOf(() =>
        validate({
          agent: {
            preset: 'vim',
            args: '--fast',
            limits: { maxTurns: 2.5, maxCostUsd: 0, maxMinutes: 'long' },
            sandbox: 'yes',
          },
        }),
      ),
    ).toEqual([
      'agent.preset: expected one of claude, codex, gemini, copilot, opencode, goose, aider, fed-agent, custom, got "vim"',
      'agent.args: expected an array, got "--fast"',
      'agent.limits.maxTurns: expected a whole number of turns',
      'agent.limits.maxCostUsd: expected a cost in USD > 0, got number 0',
      'agent.limits.maxMinutes: expected a number of minutes, got "long"',
      'agent.sandbox: expected true or false, got "yes"',
    ]);
  });

  it('names the path and what was expected, as the issue shows', () => {
    expect(problemsOf(() => validate({ chatConfig: { teamId: 7, channelId: '19:x@thread.tacv2' } }))).toEqual([
      'chatConfig.teamId: expected a non-empty string, got number 7',
    ]);
  });

  it('says what it got for a number of fix attempts that is not 0 or more, nor whole', () => {
    expect(problemsOf(() => validate({ agent: { fixAttempts: -1 } }))).toEqual([
      'agent.fixAttempts: expected 0 or more attempts, got number -1',
    ]);
    expect(problemsOf(() => validate({ agent: { fixAttempts: 1.5 } }))).toEqual([
      'agent.fixAttempts: expected a whole number of attempts, got non-integer number 1.5',
    ]);
  });

  it("splits agentCommand and a team's command as the launch does: a quote left open is refused here, naming the field", () => {
    expect(
      problemsOf(() =>
        validate({
          agentCommand: 'a "b',
          agent: { teams: { docs: { command: "codex 'x" }, api: { command: 'ok "a b"' } } },
        }),
      ),
    ).toEqual([
      'agentCommand: the command line has an unclosed " quote: a "b; close it, or put a backslash before a quote that is part of a word',
      "agent.teams.docs.command: the command line has an unclosed ' quote: codex 'x; close it, or put a backslash before a quote that is part of a word",
    ]);
    expect(problemsOf(() => validate({ agentCommand: '   ' }))).toEqual([
      'agentCommand: expected a command, got only spaces',
    ]);
  });

  it('lists every problem at once, not just the first', () => {
    const problems = problemsOf(() =>
      validate({
        agentCommand: '',
        telemetry: { enabled: 'yes', collector: { endpoint: 'not a url' } },
        chatConfig: {},
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        'agentCommand: expected a non-empty string, got an empty string',
        'telemetry.enabled: expected true or false, got "yes"',
        'telemetry.collector.endpoint: expected a URL such as http://localhost:18888, got "not a url"',
        'chatConfig.teamId: expected a non-empty string, got nothing (the field is missing)',
        'chatConfig.channelId: expected a non-empty string, got nothing (the field is missing)',
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('checks the shape of the chat channel id', () => {
    expect(problemsOf(() => validate({ chatConfig: { teamId: 't', channelId: 'general' } }))).toEqual([
      'chatConfig.channelId: expected a channel id shaped like 19:…@thread.tacv2, got "general"',
    ]);
  });

  it('refuses file names with directories for deliverable and playbookSkill', () => {
    expect(problemsOf(() => validate({ deliverable: '../escape.md', playbookSkill: 'a/b' }))).toEqual([
      'playbookSkill: expected a file name without directories, got "a/b"',
      'deliverable: expected a file name without directories, got "../escape.md"',
    ]);
  });

  it('takes signal deadlines per type and an archive age, as durations with a unit', () => {
    const { config } = validate({
      signalDeadlines: { question: '2h', directive: 'none', alert: '90s' },
      signalArchive: { olderThan: '7d' },
    });
    expect(config.signalDeadlines).toEqual({ question: '2h', directive: 'none', alert: '90s' });
    expect(deadlineTable(config.signalDeadlines)).toEqual({ question: 2 * 3_600_000, alert: 90_000 });
    // Types left out keep the defaults a coordinator would choose.
    expect(deadlineTable(validate({}).config.signalDeadlines)).toEqual({
      question: 30 * 60_000,
      directive: 10 * 60_000,
    });
  });

  it('refuses a deadline without a unit, an unknown duration and a missing archive age', () => {
    expect(
      problemsOf(() =>
        validate({ signalDeadlines: { question: '30', report: 'soon', directive: 5 }, signalArchive: {} }),
      ),
    ).toEqual([
      'signalDeadlines.directive: expected a duration with a unit such as 30m, 2h, 7d, or "none", got number 5',
      'signalDeadlines.question: expected a duration with a unit such as 30m, 2h, 7d, or "none", got "30"',
      'signalDeadlines.report: expected a duration with a unit such as 30m, 2h, 7d, or "none", got "soon"',
      'signalArchive.olderThan: expected a duration such as 30m, 2h, 7d, got nothing (the field is missing)',
    ]);
    expect(validate({ signalDeadlines: { memo: '1h' } }).warnings).toEqual([
      'federate.config.json: unknown key "signalDeadlines.memo" is ignored',
    ]);
  });

  it("reads each schedule's cron expression whole, with the cron library fed serve fires it with", () => {
    const schedule = (id: string, cron: string) => ({ id, to: 'docs', subject: 'Refresh', cron });
    expect(
      validate({ schedules: [schedule('ok', '0 3 * * 1-5'), schedule('secs', '*/30 * * * * *')] }).config,
    ).toMatchObject({ schedules: [{ cron: '0 3 * * 1-5' }, { cron: '*/30 * * * * *' }] });
    // fed config show and fed doctor passed these, and fed schedule list and fed serve refused them.
    expect(
      problemsOf(() => validate({ schedules: [schedule('a', '61 * * * *'), schedule('b', '0 25 * * *')] })),
    ).toEqual([
      'schedules[0].cron: expected a cron expression like "0 3 * * 1-5", got "61 * * * *" (CronPattern: Invalid value for minute: 61)',
      'schedules[1].cron: expected a cron expression like "0 3 * * 1-5", got "0 25 * * *" (CronPattern: Invalid value for hour: 25)',
    ]);
  });

  it('refuses a config that is not an object', () => {
    expect(problemsOf(() => validate([1, 2]))).toEqual(['(root): expected an object, got an array']);
  });

  it('warns about unknown keys and suggests the closest known one', () => {
    const { config, warnings } = validate({
      telemtry: { enabled: false },
      chatConfig: undefined,
      deliverabel: 'x.md',
      zzz: 1,
    });
    expect(config.telemetry.enabled).toBe(true);
    expect(warnings).toEqual([
      'federate.config.json: unknown key "telemtry" is ignored — did you mean "telemetry"?',
      'federate.config.json: unknown key "deliverabel" is ignored — did you mean "deliverable"?',
      'federate.config.json: unknown key "zzz" is ignored',
    ]);
  });

  it('warns of a network policy set while agent.sandbox is false: nothing enforces it, and the launch refuses it', () => {
    const { warnings } = validate({
      agent: {
        sandbox: false,
        network: 'none',
        teams: { docs: { network: { allow: ['x.example'] } }, api: { network: 'open' } },
      },
    });
    expect(warnings).toEqual([
      'federate.config.json: agent.network is not enforced while agent.sandbox is false: a launch of a team that studies the codebase is refused; turn the sandbox on, or set agent.network to "open"',
      'federate.config.json: agent.teams.docs.network is not enforced while agent.sandbox is false: a launch of a team that studies the codebase is refused; turn the sandbox on, or set agent.teams.docs.network to "open"',
    ]);
    // With the sandbox, or without a policy set (the default is the sandbox's), nothing to say.
    expect(validate({ agent: { network: 'none' } }).warnings).toEqual([]);
    expect(validate({ agent: { sandbox: false } }).warnings).toEqual([]);
  });

  it('warns about unknown nested keys too', () => {
    const { warnings } = validate({ telemetry: { enable: false, collector: { endpiont: 'http://x' } } });
    expect(warnings).toEqual([
      'federate.config.json: unknown key "telemetry.enable" is ignored — did you mean "enabled"?',
      'federate.config.json: unknown key "telemetry.collector.endpiont" is ignored — did you mean "endpoint"?',
    ]);
  });
});

describe('loadConfig', () => {
  it('validates a config once per text: loading it again is the same config, a changed file is read anew', () => {
    const root = tempDir();
    const file = join(root, 'federate.config.json');
    writeFileSync(file, JSON.stringify({ agentCommand: 'first', agentComand: 'typo' }));
    const first = loadConfig(root, {});
    expect(loadConfig(root, {})).toEqual(first);
    expect(first.warnings).toEqual([expect.stringContaining('did you mean "agentCommand"')]);
    writeFileSync(file, JSON.stringify({ agentCommand: 'second' }));
    expect(loadConfig(root, {})).toMatchObject({ config: { agentCommand: 'second' }, warnings: [] });
    writeFileSync(file, '{ "agentCommand": ');
    expect(() => loadConfig(root, {})).toThrow(ConfigValidationError);
  });

  it('uses defaults when the file is missing', () => {
    const root = tempDir();
    const loaded = loadConfig(root, {});
    expect(loaded.exists).toBe(false);
    expect(loaded.config.agentCommand).toBe('fed-agent');
  });

  it('reports invalid JSON with the file, line and column', () => {
    const root = tempDir();
    writeFileSync(join(root, 'federate.config.json'), '{\n  "description": "x",\n  "agentCommand": fed\n}\n');
    try {
      loadConfig(root, {});
      throw new Error('expected an error');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigValidationError);
      const message = (error as Error).message;
      expect(message).toContain(join(root, 'federate.config.json'));
      // V8 reads "f" as the start of `false`, so the unexpected token is the "e" after it.
      expect(message).toContain("line 3, column 20: not valid JSON (Unexpected token 'e')");
    }
  });

  it('accepts a leading byte-order mark, as Windows editors save the file', () => {
    const root = tempDir();
    writeFileSync(join(root, 'federate.config.json'), '\uFEFF{"description": "saved on Windows"}\n');
    const loaded = loadConfig(root, {});
    expect(loaded.config.description).toBe('saved on Windows');
    expect(loaded.warnings).toEqual([]);
  });

  it('reports a truncated file at its end', () => {
    const root = tempDir();
    writeFileSync(join(root, 'federate.config.json'), '{\n  "description": "x",\n');
    expect(() => loadConfig(root, {})).toThrow(/line 3, column 1: not valid JSON/);
  });

  describe('environment overrides (docs/design/spec.md §9)', () => {
    it('FED_TELEMETRY_ENABLED overrides telemetry.enabled', () => {
      const root = tempDir();
      writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ telemetry: { enabled: true } }));
      expect(loadConfig(root, { FED_TELEMETRY_ENABLED: 'false' }).config.telemetry.enabled).toBe(false);
      expect(loadConfig(root, { FED_TELEMETRY_ENABLED: 'true' }).config.telemetry.enabled).toBe(true);
    });

    it('any other FED_TELEMETRY_ENABLED value is a ConfigValidationError', () => {
      const root = tempDir();
      expect(problemsOf(() => loadConfig(root, { FED_TELEMETRY_ENABLED: 'yes' }))).toEqual([
        'FED_TELEMETRY_ENABLED: expected "true" or "false", got "yes"',
      ]);
    });

    it('OTEL_EXPORTER_OTLP_ENDPOINT overrides the collector endpoint and must be a URL', () => {
      const root = tempDir();
      writeFileSync(
        join(root, 'federate.config.json'),
        JSON.stringify({ telemetry: { collector: { endpoint: 'http://a:1' } } }),
      );
      expect(
        loadConfig(root, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318' }).config.telemetry.collector.endpoint,
      ).toBe('http://b:4318');
      expect(problemsOf(() => loadConfig(root, { OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' }))).toEqual([
        'OTEL_EXPORTER_OTLP_ENDPOINT: expected a URL such as http://localhost:4318, got "nope"',
      ]);
    });

    it('a malformed collector endpoint is named without its credentials, from the environment or the file', () => {
      const root = tempDir();
      expect(problemsOf(() => loadConfig(root, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http//fed:s3cret@otel:4318' }))).toEqual(
        ['OTEL_EXPORTER_OTLP_ENDPOINT: expected a URL such as http://localhost:4318, got "***@otel:4318"'],
      );
      expect(
        problemsOf(() => validate({ telemetry: { collector: { endpoint: 'https//fed:s3cret@otel?api_key=k3y' } } })),
      ).toEqual([
        'telemetry.collector.endpoint: expected a URL such as http://localhost:18888, got "***@otel?api_key=***"',
      ]);
    });
  });
});
