import { describe, expect, it } from 'vitest';
import {
  acknowledgeSignal,
  archiveSignals,
  type FederationConfig,
  initFederation,
  listSignals,
  onboardTeam,
  openFederation,
  sendSignal,
  setTeamStatus,
  showSignal,
} from 'fed';
import { loadConfig, type MonitorReport, renderMonitorReport, runMonitor } from 'fed/testing';
import { tempDir } from '../helpers/temp-dir.js';

const fast = { durable: false };
const T0 = new Date('2026-03-01T09:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

async function federation(teams: string[], config: Partial<FederationConfig> = {}) {
  const root = tempDir('fed-escalation-');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, fast);
  const loaded = { ...loadConfig(root, { FED_TELEMETRY_ENABLED: 'false' }).config, ...config };
  const warnings: string[] = [];
  /** One monitor cycle at `minutes` past T0, as `fed monitor` runs it (the clock injected). */
  const cycle = (minutes: number): Promise<MonitorReport> =>
    runMonitor(openFederation(root), {
      config: loaded,
      now: at(minutes),
      onReport: () => {},
      onWarning: (text) => warnings.push(text),
      ...fast,
    });
  return { root, cycle, warnings };
}

const alertsIn = async (root: string, team: string) =>
  (await listSignals(openFederation(root), { team, type: 'alert' })).signals.map((s) => s.message);

describe('the monitor and stuck signals', () => {
  it('an unanswered question expires after its deadline and is escalated to meta exactly once over many cycles', async () => {
    const { root, cycle } = await federation(['docs']);
    const question = await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'question', subject: 'Which services?' },
      { ...fast, now: () => at(0) },
    );

    expect((await cycle(29)).stuckSignals).toEqual([]);
    expect(await alertsIn(root, 'meta')).toEqual([]);

    const reports: MonitorReport[] = [];
    for (const minutes of [31, 32, 45, 60, 120, 600]) reports.push(await cycle(minutes));
    const alerts = await alertsIn(root, 'meta');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ from: 'meta', to: 'meta', subject: 'Overdue question to docs: Which services?' });
    expect(alerts[0]!.body).toContain(question.message.id);
    for (const report of reports) {
      expect(report.stuckSignals).toEqual([
        expect.objectContaining({
          id: question.message.id,
          state: 'expired',
          dueAt: at(30).toISOString(),
          alertId: alerts[0]!.id,
          alertedAt: at(31).toISOString(),
        }),
      ]);
    }
    expect(renderMonitorReport(reports[0]!)).toContain(
      `expired  question meta → docs "Which services?" (${question.message.id}), due ${at(30).toISOString()}; alert ${alerts[0]!.id} to meta`,
    );
    const shown = await showSignal(openFederation(root), question.message.id, { now: at(600) });
    expect(shown.delivery.state).toBe('expired');
    expect(shown.history.map((e) => e.event)).toEqual(['sent', 'expired', 'escalated']);

    // The coordinator acknowledges the alert and archives it: the question is still overdue, and still
    // escalated only once — the record, not the alert's presence in the inbox, remembers it.
    await acknowledgeSignal(openFederation(root), 'meta', alerts[0]!.id, fast);
    await archiveSignals(openFederation(root), { team: 'meta', olderThanMs: 60_000 }, { ...fast, now: at(700) });
    expect(await alertsIn(root, 'meta')).toEqual([]);
    for (const minutes of [701, 800]) await cycle(minutes);
    expect((await listSignals(openFederation(root), { team: 'meta', type: 'alert', all: true })).signals).toHaveLength(
      1,
    );
  });

  it('an answered question and an acknowledged directive are never escalated; an unacknowledged directive is, after 10 minutes', async () => {
    const { root, cycle } = await federation(['docs']);
    const now = { ...fast, now: () => at(0) };
    const question = await sendSignal(openFederation(root), { to: 'docs', type: 'question', subject: 'Answered' }, now);
    await sendSignal(
      openFederation(root),
      { from: 'docs', to: 'meta', type: 'report', subject: 'Here', replyTo: question.message.id },
      now,
    );
    const acked = await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Acked' }, now);
    await acknowledgeSignal(openFederation(root), 'docs', acked.message.id, fast);
    const ignored = await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject: 'Ignored' }, now);

    expect((await cycle(9)).stuckSignals).toEqual([]);
    const report = await cycle(11);
    expect(report.stuckSignals.map((s) => s.id)).toEqual([ignored.message.id]);
    expect((await alertsIn(root, 'meta')).map((a) => a.subject)).toEqual(['Overdue directive to docs: Ignored']);
  });

  it('never escalates its own alerts, even when alerts have a deadline', async () => {
    const { root, cycle } = await federation(['docs'], { signalDeadlines: { alert: '1m' } });
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'Ignored' },
      { ...fast, now: () => at(0) },
    );
    for (const minutes of [11, 20, 40, 80]) await cycle(minutes);
    expect(await alertsIn(root, 'meta')).toHaveLength(1);
  });

  it('a signal in the inbox of a team archived afterwards gets one non-delivery alert back to its sender', async () => {
    const { root, cycle } = await federation(['docs', 'api']);
    const now = { ...fast, now: () => at(0) };
    const waiting = await sendSignal(
      openFederation(root),
      { from: 'api', to: 'docs', type: 'report', subject: 'Schema changed' },
      now,
    );
    const taken = await sendSignal(
      openFederation(root),
      { from: 'api', to: 'docs', type: 'report', subject: 'Seen' },
      now,
    );
    await acknowledgeSignal(openFederation(root), 'docs', taken.message.id, fast);
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' }, fast);

    for (const minutes of [1, 2, 3, 60]) await cycle(minutes);
    const alerts = await alertsIn(root, 'api');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ from: 'meta', to: 'api', subject: 'Undeliverable: Schema changed' });
    expect(alerts[0]!.body).toContain(waiting.message.id);
    expect(alerts[0]!.body).toContain('recipient "docs" is archived');
    expect(await alertsIn(root, 'meta')).toEqual([]);
    const shown = await showSignal(openFederation(root), waiting.message.id, { now: at(60) });
    expect(shown.delivery.state).toBe('undeliverable');
    expect(shown.history.map((e) => e.event)).toEqual(['sent', 'undeliverable']);
  });

  it('when the sender is archived too, the signal is recorded undeliverable without an alert', async () => {
    const { root, cycle, warnings } = await federation(['docs', 'api']);
    const waiting = await sendSignal(
      openFederation(root),
      { from: 'api', to: 'docs', type: 'report', subject: 'Lost' },
      { ...fast, now: () => at(0) },
    );
    await setTeamStatus(openFederation(root), 'docs', { type: 'ARCHIVE' }, fast);
    await setTeamStatus(openFederation(root), 'api', { type: 'ARCHIVE' }, fast);
    const report = await cycle(1);
    expect(warnings).toEqual([]);
    expect(report.stuckSignals).toEqual([
      expect.objectContaining({ id: waiting.message.id, state: 'undeliverable', alertId: null }),
    ]);
    expect((await showSignal(openFederation(root), waiting.message.id)).facts.undeliverable).toMatchObject({
      reason: 'recipient "docs" is archived',
    });
    expect((await listSignals(openFederation(root), { team: 'meta' })).signals).toEqual([]);
  });

  it('with config signalArchive, each cycle archives what is done and old enough', async () => {
    const { root, cycle, warnings } = await federation(['docs'], { signalArchive: { olderThan: '1h' } });
    const done = await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'directive', subject: 'Done' },
      { ...fast, now: () => at(0) },
    );
    await acknowledgeSignal(openFederation(root), 'docs', done.message.id, fast);
    await sendSignal(
      openFederation(root),
      { to: 'docs', type: 'report', subject: 'Open' },
      { ...fast, now: () => at(0) },
    );

    expect((await cycle(59)).archivedSignals).toBe(0);
    // The inbox copy and meta's outbox copy.
    expect((await cycle(61)).archivedSignals).toBe(2);
    expect(warnings).toEqual([]);
    expect((await listSignals(openFederation(root), { team: 'docs' })).signals.map((s) => s.message.subject)).toEqual([
      'Open',
    ]);
    expect(
      (await listSignals(openFederation(root), { team: 'docs', all: true })).signals.map((s) => [
        s.message.subject,
        s.archived,
      ]),
    ).toEqual([
      ['Done', true],
      ['Open', false],
    ]);
  });
});
