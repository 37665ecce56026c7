import { describe, expect, it } from 'vitest';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { archiveSignals, initFederation, onboardTeam, openFederation, runDoctor, sendSignal } from 'fed';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed log keeps the history of signals', () => {
  it('archived signals and a removed team’s signals stay in the log', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    for (const domain of ['docs', 'api']) await onboardTeam(openFederation(root), { domain }, { durable: false });
    await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Mission A' }, { durable: false });
    await sendSignal(openFederation(root), { to: 'api', type: 'report', subject: 'Status B' }, { durable: false });
    expect((await fedInProcess(['signal', 'ack', '--all', '--team', 'docs'], root)).code).toBe(0);
    const sent = /meta +sent directive to docs: Mission A/;
    const acknowledged = /docs +acknowledged directive from meta: Mission A/;
    const log = async () => {
      const result = await fedInProcess(['log'], root);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    const before = await log();
    expect(before).toMatch(sent);
    expect(before).toMatch(acknowledged);

    // Archived: still history.
    await archiveSignals(openFederation(root), { olderThanMs: 1_000 }, { now: new Date(Date.now() + 60_000) });
    const archived = await log();
    expect(archived).toMatch(sent);
    expect(archived).toMatch(acknowledged);
    expect(archived).toMatch(/meta +sent report to api: Status B/);

    // The team removed, its inbox with it: meta's copy says the directive was sent.
    expect((await fedInProcess(['team', 'archive', 'docs'], root)).code).toBe(0);
    expect((await fedInProcess(['team', 'remove', 'docs'], root)).code).toBe(0);
    expect(await log()).toMatch(sent);

    // A new team under the same name: the old one's signals are still history, and are not the new one's.
    expect((await fedInProcess(['team', 'onboard', 'docs'], root)).code).toBe(0);
    const again = await log();
    expect(again).toMatch(sent);
    expect(again).not.toMatch(acknowledged);
  });

  it('a signal acknowledged by a team since removed is not delivered to a new team of its name', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'a1' }, { durable: false });
    const { message } = await sendSignal(
      openFederation(root),
      { to: 'a1', type: 'directive', subject: 'Mission A' },
      { durable: false },
    );
    const show = async () => {
      const result = await fedInProcess(['signal', 'show', message.id, '--json'], root);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { delivery: { state: string; undeliverable: string | null } }).delivery;
    };
    expect((await fedInProcess(['signal', 'ack', '--all', '--team', 'a1'], root)).code).toBe(0);
    expect((await show()).state).toBe('acknowledged');
    for (const step of [
      ['team', 'archive', 'a1'],
      ['team', 'remove', 'a1'],
      ['team', 'onboard', 'a1'],
    ])
      expect((await fedInProcess(step, root)).code).toBe(0);
    expect(await show()).toEqual({
      state: 'undeliverable',
      dueAt: expect.any(String),
      undeliverable:
        'recipient "a1" holds no copy of it, live or archived: it was sent to an earlier team "a1" since removed, or its copy was deleted',
    });
  });

  it("shows each entry on one line: a subject's line breaks blanked, a long one cut with …", async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'First line\nsecond line' },
      { durable: false },
    );
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'report', subject: 'x'.repeat(5_000) },
      { durable: false },
    );
    const result = await fedInProcess(['log'], root);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z {2}/);
    expect(lines[1]).toMatch(/meta +sent directive to docs: First line second line$/);
    expect(lines[2]).toMatch(new RegExp(`meta +sent report to docs: ${'x'.repeat(71)}…$`));
  });

  it('warns on stderr of the journal lines it skipped, naming the file; fed doctor reports them', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    const journal = join(root, '.fed', 'journal.jsonl');
    appendFileSync(journal, 'garbage line\n{"kind":"from-a-newer-fed"}\n');
    const result = await fedInProcess(['log'], root);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/docs +onboarded/);
    expect(result.stderr).toBe(
      `warning: skipped 2 line(s) of ${journal} that are not federation-journal records (fed doctor reports them)\n`,
    );
    const report = await runDoctor(openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } }));
    expect(report.findings.filter((f) => f.check === 'journal')).toEqual([
      expect.objectContaining({
        path: journal,
        problem: expect.stringMatching(/^2 line\(s\) of the federation journal .* are not records/),
        fixable: false,
      }),
    ]);
  });

  it('--since takes a duration as every other option does (1w, 1.5h), and says when a later time filters everything out', async () => {
    const root = tempDir();
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    for (const since of ['1w', '1.5h', '2 days'])
      expect((await fedInProcess(['log', '--since', since], root)).stdout).toMatch(/docs +onboarded/);
    expect((await fedInProcess(['log', '--since', '2099-01-01'], root)).stdout).toBe(
      'nothing recorded since 2099-01-01T00:00:00.000Z\n',
    );
    const bare = await fedInProcess(['log', '--since', '30'], root);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(
      '--since: expected an ISO date-time (2026-11-22T10:00:00Z) or a duration back from now',
    );
  });
});
