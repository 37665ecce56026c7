import { describe, expect, it, vi } from 'vitest';

// Every node:fs call, by name and first argument (test/helpers/fs-calls.ts).
vi.mock('node:fs', async (importOriginal) =>
  (await import('../helpers/fs-calls.js')).countingFs(await importOriginal()),
);

const { initFederation, onboardTeam, openFederation, runActors, sendSignal } = await import('fed');
const { judgeTeam, readRegistry, workspacePaths } = await import('fed/testing');
const { counted } = await import('../helpers/fs-calls.js');
const { tempDir } = await import('../helpers/temp-dir.js');

const HISTORY = 150;

/**
 * A team with a long history: its mission and HISTORY reports applied and acknowledged by its actor, then
 * what the test sends after. `fed serve` judges a team again at every change of it: a judgement that read
 * every signal of the inbox cost more with every message the team had ever had.
 */
async function teamWithHistory() {
  const root = tempDir();
  initFederation(root, {}, {});
  const fed = openFederation(root);
  const entry = await onboardTeam(fed, { domain: 'docs' }, { durable: false });
  const send = (type: 'directive' | 'report', subject: string) =>
    sendSignal(fed, { to: 'docs', type, subject }, { durable: false });
  await send('directive', 'Document the API');
  for (let i = 0; i < HISTORY; i++) await send('report', `Status ${i}`);
  await runActors(fed, { once: true, durable: false });
  const team = () => readRegistry(root).teams.find((t) => t.domainId === entry.domainId)!;
  return { fed, send, team, inbox: workspacePaths(entry.location).inbox };
}

describe('judging whether a team has work', () => {
  it('reads only the unacknowledged directives of its inbox, not its history', async () => {
    const { fed, send, team, inbox } = await teamWithHistory();
    const first = await send('directive', 'Add the examples');
    await send('report', 'An unacknowledged report');
    await send('directive', 'Then the changelog');

    const { value: candidate, calls } = await counted(() => judgeTeam(fed, team()));

    expect(candidate.skip).toBeUndefined();
    // The oldest directive its lifecycle has not applied is the work waiting.
    expect(candidate.waitingDirective?.id).toBe(first.message.id);
    const opened = calls.filter((c) => c.op === 'openSync' && c.path.startsWith(`${inbox}/`)).map((c) => c.path);
    // The two directives waiting, and no report, no ack, nothing of the history.
    expect(opened).toHaveLength(2);
    expect(opened.every((path) => path.includes('-directive-'))).toBe(true);
  });

  it('takes no acknowledged directive for work: the consumer would never apply it', async () => {
    const { fed, send, team } = await teamWithHistory();
    const sent = await send('directive', 'Acknowledged before it was applied');
    await fed.backend.signals
      .inbox({ id: 'docs', entry: team() })
      .acknowledge([{ file: sent.file, path: sent.inboxPath, message: sent.message }]);

    const candidate = await judgeTeam(fed, team());

    expect(candidate.skip).toBeUndefined();
    expect(candidate.waitingDirective).toBeUndefined();
  });
});
