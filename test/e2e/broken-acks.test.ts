import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * An ack file fed cannot read (garbage, empty, a FIFO, a directory) must not strand its signal: the bad
 * ack is quarantined with a reason and the signal is applied once — by the actors, or acknowledged by hand.
 */
const BAD_ACKS: Record<string, (path: string) => void> = {
  garbage: (path) => writeFileSync(path, 'not an ack'),
  'an empty file': (path) => writeFileSync(path, ''),
  'a FIFO': (path) => execFileSync('mkfifo', [path]),
  'a directory': (path) => mkdirSync(path),
};

/** Older than the settle time: an empty file that recent might be an ack still being written. */
const backdate = (path: string) => {
  const past = new Date(Date.now() - 60_000);
  utimesSync(path, past, past);
};

async function federationWithBadAck(kind: string, stamp: (path: string) => void = backdate) {
  const root = tempDir();
  const fed = (...args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 30_000 });
  expect((await fed('init')).code).toBe(0);
  expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
  const sent = JSON.parse(
    (await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'work', '--json')).stdout,
  ) as { id: string; inbox: string };
  const ack = `${sent.inbox}.ack`;
  BAD_ACKS[kind]!(ack);
  stamp(ack);
  const quarantine = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'quarantine');
  return { fed, sent, ack, quarantine };
}

/** Ended by itself (not killed by the time limit), with no stack trace. */
function expectClean(result: FedResult, code: number): void {
  expect(result.code, `stderr: ${result.stderr}`).toBe(code);
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

const acknowledged = async (fed: (...args: string[]) => Promise<FedResult>) =>
  (
    JSON.parse((await fed('signal', 'list', '--team', 'docs', '--json')).stdout) as {
      signals: { message: { acknowledged: boolean } }[];
    }
  ).signals.map((s) => s.message.acknowledged);

describe('a bad ack file never strands its signal', () => {
  it.each(Object.keys(BAD_ACKS))(
    '%s as the ack: fed actors run quarantines it with a reason and applies the signal once',
    async (kind) => {
      const { fed, ack, quarantine } = await federationWithBadAck(kind);
      const first = await fed('actors', 'run', '--once');
      expectClean(first, 0);
      expect(first.stdout).toMatch(/docs: MISSION_ASSIGNED/);
      expect(first.stdout).toMatch(/docs: quarantined .*\.json\.ack: /);
      expect(JSON.parse(readFileSync(ack, 'utf8'))).toMatchObject({ acknowledged: true });
      expect(await acknowledged(fed)).toEqual([true]);
      const reasons = readdirSync(quarantine).filter((name) => name.endsWith('.reason.json'));
      expect(reasons).toHaveLength(1);
      expect(JSON.parse(readFileSync(join(quarantine, reasons[0]!), 'utf8'))).toMatchObject({
        file: expect.stringMatching(/\.json\.ack$/),
        reason: expect.any(String),
      });
      // Applied once: a second run finds nothing to do.
      const second = await fed('actors', 'run', '--once');
      expectClean(second, 0);
      expect(second.stdout).not.toMatch(/MISSION_ASSIGNED/);
    },
  );

  // Planted a moment before the run, or stamped in the future: the file may look like an ack still being
  // written, yet the run must neither exit with the signal unapplied nor wait for ever.
  const FRESH: Record<string, (path: string) => void> = {
    'just now': () => undefined,
    'a year ahead': (path) => {
      const ahead = new Date(Date.now() + 365 * 86_400_000);
      utimesSync(path, ahead, ahead);
    },
  };
  it.each([
    ['garbage', 'just now'],
    ['an empty file', 'a year ahead'],
  ])(
    '%s written %s as the ack: fed actors run --once waits it out, quarantines it and applies the signal once',
    async (kind, when) => {
      const { fed, ack, quarantine } = await federationWithBadAck(kind, FRESH[when]);
      const first = await fed('actors', 'run', '--once');
      expectClean(first, 0);
      expect(first.stdout).toMatch(/docs: MISSION_ASSIGNED/);
      expect(first.stdout).toMatch(/docs: quarantined .*\.json\.ack: /);
      expect(JSON.parse(readFileSync(ack, 'utf8'))).toMatchObject({ acknowledged: true });
      expect(readdirSync(quarantine).filter((name) => name.endsWith('.reason.json'))).toHaveLength(1);
      expect((await fed('actors', 'run', '--once')).stdout).not.toMatch(/MISSION_ASSIGNED/);
    },
  );

  it.each(Object.keys(BAD_ACKS))(
    '%s as the ack: fed signal ack quarantines it, says so, and acknowledges the signal',
    async (kind) => {
      const { fed, sent, ack, quarantine } = await federationWithBadAck(kind);
      const result = await fed('signal', 'ack', sent.id, '--team', 'docs');
      expectClean(result, 0);
      expect(result.stdout).toMatch(/^acknowledged /m);
      expect(result.stderr).toMatch(/warning: moved \S*\.json\.ack to \S*quarantine\S*: an unusable ack file: /);
      expect(JSON.parse(readFileSync(ack, 'utf8'))).toMatchObject({ acknowledged: true });
      expect(readdirSync(quarantine).filter((name) => name.endsWith('.reason.json'))).toHaveLength(1);
      expect(await acknowledged(fed)).toEqual([true]);
    },
  );
});
