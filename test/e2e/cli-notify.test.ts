import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openFederation, sendSignal } from 'fed';
import { federationPaths, type NeedsYouItem } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { fakeAgent, federationWithMission } from '../helpers/launch-federation.js';

const NOTIFY = fileURLToPath(new URL('../fixtures/notify-append.mjs', import.meta.url));

/** The docs federation with a notify command that appends each item it is told to `told.jsonl`. */
async function notifiedFederation() {
  const { root } = await federationWithMission();
  const out = join(root, 'told.jsonl');
  const configFile = federationPaths(root).config;
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
  writeFileSync(
    configFile,
    JSON.stringify({ ...config, notify: { command: `'${process.execPath}' '${NOTIFY}' '${out}'` } }),
  );
  const told = (): NeedsYouItem[] =>
    existsSync(out)
      ? readFileSync(out, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { item: NeedsYouItem }).item)
      : [];
  return { root, told, fed: (args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 60_000 }) };
}

describe('someone is told (CLI)', () => {
  it('fed launch tells a failure once; fed signal send tells a question at once; monitors tell nothing twice', async () => {
    const { root, told, fed } = await notifiedFederation();
    const launch = await fed(['launch', '--team', 'docs', '--agent', `'${process.execPath}' -e 'process.exit(4)'`]);
    expect(launch.code, launch.stderr).toBe(1);
    expect(launch.stderr).not.toMatch(/warning/);
    // The launch's own alert to meta about the failure is not told a second time as an escalation.
    expect(told().map((item) => [item.kind, item.team])).toEqual([['failed', 'docs']]);

    const asked = await fed([
      'signal',
      'send',
      '--from',
      'docs',
      '--to',
      'meta',
      '--type',
      'question',
      '--subject',
      'Which sources?',
    ]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(told().map((item) => [item.kind, item.summary])).toEqual([
      ['failed', expect.stringMatching(/^docs failed: crashed/)],
      ['question', 'docs asks: Which sources?'],
    ]);

    // An escalation nobody told yet, then two monitors at once: told exactly once between them.
    await sendSignal(openFederation(root), { from: 'docs', to: 'meta', type: 'alert', subject: 'Disk full' });
    const monitors = await Promise.all([fed(['monitor', '--json']), fed(['monitor', '--json'])]);
    for (const monitor of monitors) expect(monitor.code, monitor.stderr).toBe(0);
    expect(told().map((item) => item.kind)).toEqual(['failed', 'question', 'escalation']);
    expect((await fed(['monitor', '--json'])).code).toBe(0);
    expect(told()).toHaveLength(3);
  });

  it('fed run tells after the team and again at the end: the failure once', async () => {
    const { told, fed } = await notifiedFederation();
    const run = await fed(['run', '--agent', `'${process.execPath}' -e 'process.exit(4)'`]);
    expect(run.stdout).toMatch(/docs: failed/);
    expect(run.stderr).not.toMatch(/warning/);
    expect(told().map((item) => [item.kind, item.team])).toEqual([['failed', 'docs']]);
  });

  it('a launch that pauses the team (a crash after progress) tells the pause, with why', async () => {
    const { told, fed } = await notifiedFederation();
    const launch = await fed(['launch', '--team', 'docs', '--agent', fakeAgent('exit-midway')]);
    expect(launch.stderr).not.toMatch(/warning/);
    expect(told()).toEqual([
      expect.objectContaining({
        kind: 'paused',
        team: 'docs',
        summary: expect.stringMatching(/^docs is paused \(crashed/),
      }),
    ]);
  });

  it('a notify command that fails is a warning and the command still succeeds', async () => {
    const { root, fed } = await notifiedFederation();
    const configFile = federationPaths(root).config;
    const config = JSON.parse(readFileSync(configFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      configFile,
      JSON.stringify({ ...config, notify: { command: `'${process.execPath}' -e 'process.exit(5)'` } }),
    );
    const asked = await fed(['signal', 'send', '--to', 'meta', '--type', 'question', '--subject', 'Still there?']);
    expect(asked.code).toBe(0);
    expect(asked.stderr).toMatch(
      /^warning: question:\S+ was not told through command \(tried again later\): notify\.command exited with code 5$/m,
    );
  });

  it('with nothing configured, fed signal send to meta writes nothing for it', async () => {
    const { root } = await federationWithMission();
    const asked = await runFed([
      '--root',
      root,
      'signal',
      'send',
      '--to',
      'meta',
      '--type',
      'question',
      '--subject',
      'Hello?',
    ]);
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(federationPaths(root).notify)).toBe(false);
  });
});
