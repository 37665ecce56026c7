import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openFederation, sendSignal, type SignalMessage, signalMessageSchema } from 'fed';
import { FED_BIN, runFed, type FedOptions } from '../helpers/fed-cli.js';
import { waitFor } from '../helpers/fixture-process.js';
import { entries, signalFederation, type SignalFederation } from '../helpers/signal-federation.js';

interface Listed {
  team: string;
  box: string;
  dir: string;
  signals: { file: string; path: string; message: SignalMessage }[];
  invalid: { file: string; path: string; reason: string }[];
}

/** Signals that only set the scene are sent through the library: each CLI start costs ~0.5 s of CPU. */
const fast = { durable: false };

async function fedIn(fed: SignalFederation, args: readonly string[], options: FedOptions = {}) {
  return runFed(['--root', fed.root, ...args], options);
}

async function listJson(fed: SignalFederation, args: readonly string[] = []): Promise<Listed> {
  const result = await fedIn(fed, ['signal', 'list', '--json', ...args]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Listed;
}

/** `fed signal watch` as a live process: its output so far, and a way to wait for it to be ready. */
function startWatch(fed: SignalFederation, args: readonly string[]) {
  const { FED_ROOT: _root, FED_TEAM: _team, ...env } = process.env;
  const child = spawn(process.execPath, [FED_BIN, '--root', fed.root, 'signal', 'watch', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  const ready = () => waitFor(() => output.stderr.includes('watching '), 10_000, 'fed signal watch to start');
  return { child, output, exited, ready };
}

describe('fed signal (built CLI)', () => {
  it('sends, lists, acknowledges (twice keeps the first time) and shows the acknowledgment', async () => {
    const fed = await signalFederation(['docs']);
    const sent = await fedIn(fed, [
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'directive',
      '--subject',
      'Write the guide',
      '--body',
      'Cover signals.',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const path = sent.stdout.trim();
    expect(path).toMatch(
      new RegExp(`^${fed.team('docs').inbox}/\\d{4}-\\d{2}-\\d{2}T\\d{6}Z-directive-write-the-guide\\.json$`),
    );
    const message = signalMessageSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
    expect(message).toMatchObject({ from: 'meta', to: 'docs', body: 'Cover signals.' });

    const table = await fedIn(fed, ['signal', 'list', '--team', 'docs']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^TIMESTAMP\s+TYPE\s+FROM\s+TO\s+STATE\s+ACKNOWLEDGED\s+ID\s+ANSWERED BY\s+SUBJECT\n/);
    expect(table.stdout).toContain(`meta  docs  delivered  no            ${message.id}  -            Write the guide`);

    const ack = await fedIn(fed, ['signal', 'ack', message.id, '--team', 'docs']);
    expect(ack.code, ack.stderr).toBe(0);
    expect(ack.stdout).toMatch(/^acknowledged \S+-write-the-guide\.json \(.+\) at (\S+)\n$/);
    const firstTime = /at (\S+)\n$/.exec(ack.stdout)![1];
    const again = await fedIn(fed, ['signal', 'ack', path, '--team', 'docs', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual([
      expect.objectContaining({ id: message.id, alreadyAcknowledged: true, acknowledged_at: firstTime }),
    ]);
    expect(JSON.parse(readFileSync(`${path}.ack`, 'utf8'))).toEqual({ acknowledged: true, acknowledged_at: firstTime });

    const listed = await listJson(fed, ['--team', 'docs']);
    expect(listed.signals.map((s) => s.message)).toEqual([
      { ...message, acknowledged: true, acknowledged_at: firstTime },
    ]);
  });

  it('a piped standard input that never ends is refused after FED_STDIN_TIMEOUT_SECONDS (exit 2), nothing delivered', async () => {
    const fed = await signalFederation(['docs']);
    const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
    const child = spawn(
      process.execPath,
      [
        FED_BIN,
        '--root',
        fed.root,
        'signal',
        'send',
        '--to',
        'docs',
        '--type',
        'report',
        '--subject',
        'Stuck',
        '--body-file',
        '-',
      ],
      {
        env: { ...inherited, FED_TELEMETRY_ENABLED: 'false', FED_STDIN_TIMEOUT_SECONDS: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    child.stdin.write('part of a body that never ends');
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.destroy();
    expect(code).toBe(2);
    expect(stderr).toContain('standard input did not end within 1 s (FED_STDIN_TIMEOUT_SECONDS)');
    expect(entries(fed.team('docs').inbox)).toEqual([]);
  });

  it('reads the body from standard input (--body-file -) or a file, and prints JSON with --json', async () => {
    const fed = await signalFederation(['docs']);
    const body = 'line one\nline two ✓\n';
    const piped = await fedIn(
      fed,
      ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'Piped', '--body-file', '-', '--json'],
      { input: body },
    );
    expect(piped.code, piped.stderr).toBe(0);
    const result = JSON.parse(piped.stdout) as {
      id: string;
      file: string;
      inbox: string;
      outbox: string;
      delivered: boolean;
      message: SignalMessage;
    };
    expect(result).toMatchObject({ delivered: true, message: { body, subject: 'Piped' } });
    expect(result.inbox).toBe(join(fed.team('docs').inbox, result.file));
    expect(readFileSync(result.outbox, 'utf8')).toBe(readFileSync(result.inbox, 'utf8'));

    writeFileSync(join(fed.root, 'body.md'), '# From a file\n');
    const fromFile = await fedIn(
      fed,
      ['signal', 'send', '--to', 'docs', '--type', 'report', '--subject', 'Filed', '--body-file', 'body.md', '--json'],
      { cwd: fed.root },
    );
    expect(fromFile.code, fromFile.stderr).toBe(0);
    expect((JSON.parse(fromFile.stdout) as { message: SignalMessage }).message.body).toBe('# From a file\n');
  });

  it('takes the sender from $FED_TEAM, or from the team workspace it runs in, else meta', async () => {
    const fed = await signalFederation(['docs']);
    const send = (options: FedOptions, root = true) =>
      runFed(
        [
          ...(root ? ['--root', fed.root] : []),
          'signal',
          'send',
          '--to',
          'meta',
          '--type',
          'report',
          '--subject',
          'who',
          '--json',
        ],
        options,
      );
    const fromEnv = await send({ env: { FED_TEAM: 'docs' } });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect((JSON.parse(fromEnv.stdout) as { message: SignalMessage }).message.from).toBe('docs');
    const fromWorkspace = await send({ cwd: fed.team('docs').workspace }, false);
    expect(fromWorkspace.code, fromWorkspace.stderr).toBe(0);
    expect((JSON.parse(fromWorkspace.stdout) as { message: SignalMessage }).message.from).toBe('docs');
    const fromRoot = await send({ cwd: fed.root }, false);
    expect((JSON.parse(fromRoot.stdout) as { message: SignalMessage }).message.from).toBe('meta');
    // Inside the workspace, list and ack act on the team's own inbox by default.
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject: 'for docs' }, fast);
    const own = await runFed(['signal', 'list', '--json'], { cwd: fed.team('docs').workspace });
    expect((JSON.parse(own.stdout) as Listed).team).toBe('docs');
    expect((JSON.parse(own.stdout) as Listed).signals).toHaveLength(1);
  });

  it('delivers a send retried with the same --id once and exits 0', async () => {
    const fed = await signalFederation(['docs']);
    const args = [
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'alert',
      '--subject',
      'Build broken',
      '--id',
      '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
    ];
    const first = await fedIn(fed, args);
    const retry = await fedIn(fed, args);
    expect([first.code, retry.code]).toEqual([0, 0]);
    expect(retry.stdout).toBe(first.stdout);
    expect(retry.stderr).toMatch(/already delivered; nothing new was written/);
    expect(entries(fed.team('docs').inbox)).toHaveLength(1);
    expect(entries(fed.meta.outbox)).toHaveLength(1);
  });

  it('keeps a hostile subject inside the inbox and out of the terminal', async () => {
    const fed = await signalFederation(['docs']);
    const subject = `../../../../etc/passwd\n\u001b[2J\u001b[31mRED\u202Eevil ${'🚀'.repeat(20)}${'long '.repeat(2_000)}`;
    const sent = await fedIn(fed, [
      'signal',
      'send',
      '--to',
      'docs',
      '--type',
      'alert',
      '--subject',
      subject,
      '--json',
    ]);
    expect(sent.code, sent.stderr).toBe(0);
    const { inbox, file } = JSON.parse(sent.stdout) as { inbox: string; file: string };
    expect(inbox).toBe(join(fed.team('docs').inbox, file));
    expect(entries(fed.team('docs').inbox)).toEqual([file]);
    expect(file).toMatch(/^[A-Za-z0-9-]+-alert-etc-passwd-2j-31mred-evil-long-[a-z-]+\.json$/);
    expect((await listJson(fed, ['--team', 'docs'])).signals[0]?.message.subject).toBe(subject);
    const table = await fedIn(fed, ['signal', 'list', '--team', 'docs']);
    // eslint-disable-next-line no-control-regex -- control characters are what it looks for
    expect(table.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('reports invalid inbox files by name and reason without hiding the valid ones or deleting anything', async () => {
    const fed = await signalFederation(['docs']);
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'report', subject: 'fine' }, fast);
    const inbox = fed.team('docs').inbox;
    writeFileSync(join(inbox, 'broken.json'), '{"id":');
    writeFileSync(join(inbox, 'empty.json'), '');
    const table = await fedIn(fed, ['signal', 'list', '--team', 'docs']);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('fine');
    expect(table.stderr).toContain('invalid: broken.json: not valid JSON at line 1, column 7');
    expect(table.stderr).toContain('invalid: empty.json: the file is empty');
    const listed = await listJson(fed, ['--team', 'docs', '--type', 'alert']);
    expect(listed.signals).toEqual([]);
    expect(listed.invalid.map((i) => i.file)).toEqual(['broken.json', 'empty.json']);
    expect(entries(inbox)).toContain('broken.json');
    expect(entries(inbox)).toContain('empty.json');
  });

  it('acknowledges everything with --all, and refuses unknown or missing targets with exit 2', async () => {
    const fed = await signalFederation(['docs']);
    for (const subject of ['a', 'b'])
      await sendSignal(openFederation(fed.root), { from: 'docs', to: 'meta', type: 'report', subject }, fast);
    const unknown = await fedIn(fed, ['signal', 'ack', '0e0e0e0e-1111-4222-8333-444455556666']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no signal with id 0e0e0e0e-1111-4222-8333-444455556666 in the inbox of "meta"/);
    const neither = await fedIn(fed, ['signal', 'ack']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/which signal\?/);
    expect(entries(fed.meta.inbox).filter((f) => f.endsWith('.ack'))).toEqual([]);

    const all = await fedIn(fed, ['signal', 'ack', '--all']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.match(/^acknowledged /gm)).toHaveLength(2);
    expect(entries(fed.meta.inbox).filter((f) => f.endsWith('.json.ack'))).toHaveLength(2);
    const none = await fedIn(fed, ['signal', 'ack', '--all']);
    expect(none.stdout).toBe('nothing to acknowledge\n');
  });

  it('watches an inbox: prints each arriving signal as a JSON line and stops after --count', async () => {
    const fed = await signalFederation(['docs']);
    const watch = startWatch(fed, ['--team', 'docs', '--json', '--count', '2']);
    await watch.ready();
    for (const subject of ['first', 'second'])
      await sendSignal(openFederation(fed.root), { to: 'docs', type: 'directive', subject }, fast);
    expect(await watch.exited).toBe(0);
    const lines = watch.output.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { file: string; message: SignalMessage });
    expect(lines.map((l) => l.message.subject)).toEqual(['first', 'second']);
    expect(lines.every((l) => signalMessageSchema.safeParse(l.message).success)).toBe(true);
  });

  it('watch prints the unacknowledged backlog first with --backlog, and exits 0 when interrupted', async () => {
    const fed = await signalFederation(['docs']);
    await sendSignal(openFederation(fed.root), { to: 'docs', type: 'question', subject: 'Waiting since before' }, fast);
    const watch = startWatch(fed, ['--team', 'docs', '--backlog']);
    await watch.ready();
    await waitFor(() => watch.output.stdout.includes('Waiting since before'), 10_000, 'the backlog line');
    expect(watch.output.stdout).toMatch(
      /^\S+Z {2}question {2}from meta {2}Waiting since before {2}\([0-9a-f-]{36}\) {2}\/\S+\.json\n$/,
    );
    watch.child.kill('SIGINT');
    expect(await watch.exited).toBe(0);
  });

  it('prints the JSON Schemas of signal and ack files', async () => {
    const signal = await runFed(['schema', 'signal']);
    expect(signal.code).toBe(0);
    expect(JSON.parse(signal.stdout)).toMatchObject({
      title: 'SignalMessage',
      additionalProperties: false,
      properties: { protocol: { const: 'file-signal-v1' } },
    });
    const ack = await runFed(['schema', 'ack']);
    expect(JSON.parse(ack.stdout)).toMatchObject({
      title: 'SignalAcknowledgment',
      required: ['acknowledged', 'acknowledged_at'],
    });
    const unknown = await runFed(['schema', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown schema "nope"; available: signal, ack/);
  });
});
