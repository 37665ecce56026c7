import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';

/**
 * `fed event` and `fed team show` touch what they need, not the federation's history: the same command on
 * a consultant that answered 10 questions and on one that answered 200 makes the same filesystem calls.
 * Before, each `fed event` re-sent the stored envelope's report to meta by reading every signal of its
 * subject in meta's inbox and the team's outbox (every transition report of the history), and `fed team
 * show` read the whole inbox to find the unacknowledged signals.
 */
// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { counted, onPaths } = await import('../helpers/fs-calls.js');
const { fedInProcess } = await import('../helpers/fed-in-process.js');

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/**
 * A consultant that answered `answered` questions, researching one more — built in another process, as a
 * team actor would leave it: nothing of it is cached in this one.
 */
function history(answered: number): string {
  const built = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { longHistoryFederation, askQuestion } = await import(${JSON.stringify(new URL('../helpers/big-federations.ts', import.meta.url).pathname)});
       const { root, team } = await longHistoryFederation(${answered});
       await askQuestion(root, team, ${answered});
       process.stdout.write(root);`,
    ],
    { encoding: 'utf8' },
  );
  if (built.status !== 0) throw new Error(built.stderr);
  roots.push(built.stdout);
  return built.stdout;
}

/**
 * The calls on a path a command makes (reads and writes of an open descriptor belong to its open). Not
 * /dev/urandom: the process reads random bytes a pool at a time, whenever its pool runs out, whichever
 * command that is (src/infra/crypto/random.ts).
 */
async function pathCalls(args: readonly string[], root: string): Promise<string[]> {
  const {
    value: { code, stderr },
    calls,
  } = await counted(() => fedInProcess(args, root));
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return onPaths(calls)
    .filter((c) => c.path !== '/dev/urandom')
    .map((c) => `${c.op} ${c.path.replace(root, '<root>')}`);
}

describe('in a federation with a long history', () => {
  it('fed event and fed team show make the same filesystem calls after 10 answers as after 200', async () => {
    const [warm, short, long] = [history(10), history(10), history(200)];
    const event = ['event', '--team', 'helper', 'ANSWER_SENT'];
    const show = ['team', 'show', 'helper'];
    // What a process does once (finding its package.json, its own start time) is not the federation's.
    await pathCalls(event, warm);
    const [shortEvent, longEvent] = [await pathCalls(event, short), await pathCalls(event, long)];
    const [shortShow, longShow] = [await pathCalls(show, short), await pathCalls(show, long)];
    // The names differ (times, temp files): the counts may not.
    expect(longEvent.length, longEvent.join('\n')).toBe(shortEvent.length);
    expect(longShow.length, longShow.join('\n')).toBe(shortShow.length);
  }, 120_000);
});
