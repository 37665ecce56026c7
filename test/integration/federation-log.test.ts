import { describe, expect, it } from 'vitest';
import { archiveSignals, initFederation, onboardTeam, openFederation, sendSignal } from 'fed';
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
  });
});
