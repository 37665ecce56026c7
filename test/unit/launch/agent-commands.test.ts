import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { backendEnvNames, encodeFrame, FRAME, FrameReader, MAX_FRAME_BYTES } from 'fed/testing';
import { configSchema } from 'fed';
import { checkAgentCommand } from '../../../src/apps/launch/supervise/agent-commands.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('the fed commands a sandboxed agent may run through its broker', () => {
  const root = '/';

  it.each([
    [['event', 'PLAN_READY', '--data', '{}']],
    [['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'x']],
    [['signal', 'list', '--unacked']],
    [['signal', 'ack', '--all']],
    [['signal', 'watch', '--backlog']],
    [['team', 'show']],
    [['deliverable', 'check', 'deliverable.md']],
    [['schema']],
    [['config', 'show']],
    [['--root', '/', 'event', 'FAIL']],
    [[]],
    [['--help']],
    [['signal', '--help']],
    [['mcp']],
    [['mcp', '--team', 'docs']],
  ])('allows fed %j', (argv) => {
    expect(() => checkAgentCommand(argv, '/', root)).not.toThrow();
  });

  it.each([[['mcp', '--meta']], [['mcp', '--meta=yes']], [['--root', '/', 'mcp', '--team', 'docs', '--meta']]])(
    "refuses fed %j: meta's server is not an agent's",
    (argv) => {
      expect(() => checkAgentCommand(argv, '/', root)).toThrow(
        expect.objectContaining({ code: 'AGENT_COMMAND_REFUSED', message: expect.stringContaining('fed mcp --meta') }),
      );
    },
  );

  it.each([
    [['launch', '--team', 'docs'], 'fed launch'],
    [['run'], 'fed run'],
    [['init'], 'fed init'],
    [['team', 'archive', 'other'], 'fed team archive'],
    [['team', 'retry', 'other'], 'fed team retry'],
    [['team', 'review', 'other'], 'fed team review'],
    [['signal', 'archive', 'x'], 'fed signal archive'],
    [['actors', 'run'], 'fed actors'],
    [['doctor', '--fix'], 'fed doctor'],
    [['migrate', 'to-files'], 'fed migrate'],
    [['chat'], 'fed chat'],
    [['demo'], 'fed demo'],
    [['--root', '/', 'plan'], 'fed plan'],
  ])('refuses fed %j, naming it and what an agent may run', (argv, named) => {
    expect(() => checkAgentCommand(argv, '/', root)).toThrow(
      expect.objectContaining({
        code: 'AGENT_COMMAND_REFUSED',
        message: expect.stringMatching(
          new RegExp(
            `^${named} is not for an agent: inside the sandbox an agent may run fed event, fed signal send\\|list`,
          ),
        ),
      }),
    );
  });

  it('allows --root only when it is the federation root, however it is spelled', () => {
    const dir = tempDir();
    const federation = join(dir, 'federation');
    mkdirSync(join(federation, 'sub'), { recursive: true });
    symlinkSync(federation, join(dir, 'link'));
    for (const value of [federation, `${federation}/sub/..`, join(dir, 'link'), '..'])
      expect(() =>
        checkAgentCommand(['--root', value, 'team', 'list'], join(federation, 'sub'), federation),
      ).not.toThrow();
    for (const argv of [
      ['--root', dir, 'team', 'list'],
      ['team', 'list', '--root', '/tmp'],
      ['team', 'list', `--root=${dir}`],
      ['--root', join(dir, 'missing'), 'event', 'FAIL'],
      ['--root'],
    ])
      expect(() => checkAgentCommand(argv, dir, federation)).toThrow(
        expect.objectContaining({
          code: 'AGENT_COMMAND_REFUSED',
          message: expect.stringContaining('an agent acts only on its own federation'),
        }),
      );
  });
});

describe('the files a broker would read for an agent', () => {
  it('refuses a --body-file other than standard input (fed in the sandbox sends the file on stdin)', () => {
    const send = ['signal', 'send', '--to', 'meta', '--type', 'report', '--subject', 'x'];
    expect(() => checkAgentCommand([...send, '--body-file', '-'], '/', '/')).not.toThrow();
    for (const argv of [
      [...send, '--body-file', '/proc/1/environ'],
      [...send, '--body-file=notes.md'],
    ])
      expect(() => checkAgentCommand(argv, '/', '/')).toThrow(
        expect.objectContaining({
          code: 'AGENT_COMMAND_REFUSED',
          message: expect.stringContaining('the broker reads no files for an agent'),
        }),
      );
  });

  it('checks deliverables and schemas inside the federation only', () => {
    const dir = tempDir();
    const federation = join(dir, 'federation');
    mkdirSync(federation);
    writeFileSync(join(federation, 'deliverable.md'), '# x\n');
    writeFileSync(join(dir, 'outside.md'), '# x\n');
    symlinkSync(join(dir, 'outside.md'), join(federation, 'link.md'));
    expect(() => checkAgentCommand(['deliverable', 'check', 'deliverable.md'], federation, federation)).not.toThrow();
    for (const argv of [
      ['deliverable', 'check', '/proc/self/environ'],
      ['deliverable', 'check', '../outside.md'],
      ['deliverable', 'check', 'link.md'],
      ['deliverable', 'check', 'deliverable.md', '--schema', '/etc/passwd'],
      ['deliverable', 'check', '--json', '--', '/etc/passwd'],
    ])
      expect(() => checkAgentCommand(argv, federation, federation)).toThrow(
        expect.objectContaining({
          code: 'AGENT_COMMAND_REFUSED',
          message: expect.stringContaining('an agent checks files of its federation'),
        }),
      );
  });
});

describe('the broker protocol', () => {
  it('splits a byte stream into frames, however it is cut', () => {
    const bytes = Buffer.concat([encodeFrame(FRAME.STDOUT, 'hello'), encodeFrame(FRAME.EXIT, '{"code":0}')]);
    const reader = new FrameReader();
    const frames = [...bytes].flatMap((byte) => reader.push(Buffer.from([byte])));
    expect(frames.map(({ type, payload }) => [type, payload.toString()])).toEqual([
      [FRAME.STDOUT, 'hello'],
      [FRAME.EXIT, '{"code":0}'],
    ]);
  });

  it('refuses a frame over the limit before buffering it', () => {
    const head = Buffer.alloc(5);
    head.writeUInt32BE(MAX_FRAME_BYTES + 1, 1);
    expect(() => new FrameReader().push(head)).toThrow(/over the 1048576-byte limit/);
  });
});

describe("the backends' environment a brokered agent does not get", () => {
  it('is FED_NATS_URL, and the variable holding the NATS credentials when the config names one', () => {
    expect(backendEnvNames(configSchema.parse({}))).toEqual(['FED_NATS_URL']);
    expect(
      backendEnvNames(configSchema.parse({ backend: { type: 'jetstream', credentials: { env: 'NATS_CREDS' } } })),
    ).toEqual(['FED_NATS_URL', 'NATS_CREDS']);
  });
});
