import { describe, expect, it } from 'vitest';
import { addressedCommand, plainText } from '../../../src/apps/chat/chat-text.js';
import { type MonitorReport, renderMonitorReport, renderStatusSummary, type TeamReport } from 'fed/testing';

describe('chat text', () => {
  it.each([
    ['@acme status', 'status'],
    ['hey @acme: pause docs', 'pause docs'],
    ['<p><at>acme</at>&nbsp;resume docs</p>', 'resume docs'],
    ['<p><at id="0">Acme</at> status</p>', 'status'],
    ['@<at>acme</at> monitor', 'monitor'],
    ['<at>@acme</at>, launch docs', 'launch docs'],
    ['@ACME status', 'status'],
    ['@acme', ''],
  ])('finds the command addressed to @acme in %j', (text, line) => {
    expect(addressedCommand(text, 'acme')?.line).toBe(line);
  });

  it.each([['hello everyone'], ['@acmex status'], ['mail me@acme status'], ['@acme-bot status'], ['acme status']])(
    '%j does not address @acme',
    (text) => {
      expect(addressedCommand(text, 'acme')).toBeUndefined();
    },
  );

  it('keeps the lines below the command as its body, from text or from HTML paragraphs', () => {
    expect(addressedCommand('@acme send docs directive Write it\nCover the API.\nAnd the CLI.', 'acme')).toEqual({
      line: 'send docs directive Write it',
      body: 'Cover the API.\nAnd the CLI.',
    });
    expect(
      addressedCommand('<p><at>acme</at> send docs question Scope?</p><p>Only src/ &amp; docs/</p>', 'acme'),
    ).toEqual({
      line: 'send docs question Scope?',
      body: 'Only src/ & docs/',
    });
  });

  it('reads a name with spaces and regex characters literally', () => {
    expect(addressedCommand('<at>Acme (docs)</at> status', 'Acme (docs)')?.line).toBe('status');
    expect(addressedCommand('@Acme docs status', 'Acme (docs)')).toBeUndefined();
  });

  it('reduces markup to plain text', () => {
    expect(plainText('<div>a<br>b &lt;c&gt; &quot;d&quot;</div>\r\n')).toBe('a\nb <c> "d"');
  });
});

function team(id: string, healthy: boolean, reasons: string[] = []): TeamReport {
  return {
    team: id,
    domain: id,
    archetype: 'deliverable',
    status: 'active',
    lifecycle: {
      machine: 'deliverable',
      state: healthy ? 'scanning' : 'failed',
      since: null,
      inStateMs: 125_000,
      updatedAt: '2026-01-31T12:00:00.000Z',
      mission: 'm',
      failure: null,
    },
    lastActive: null,
    inbox: { total: 1, unacknowledged: 0 },
    outbox: { total: 0, unacknowledged: 0 },
    deliverable: null,
    healthy,
    reasons,
    error: null,
  };
}

const NO_TELEMETRY: MonitorReport['telemetry'] = {
  enabled: false,
  url: null,
  collector: 'unknown',
  since: null,
  checkedAt: null,
  error: null,
};

describe('status summary', () => {
  it('gives the totals and one line per team, unhealthy ones with their reasons', () => {
    const report: MonitorReport = {
      generatedAt: '2026-01-31T12:02:05.000Z',
      root: '/r',
      staleAfterMinutes: 10,
      teams: [team('docs', false, ['failed: sources inaccessible']), team('api', true)],
      meta: { inbox: { total: 3, unacknowledged: 1 }, outbox: { total: 1, unacknowledged: 0 } },
      totals: { teams: 2, healthy: 1, unhealthy: 1, unacknowledged: 1 },
      stuckSignals: [],
      archivedSignals: 0,
      telemetry: NO_TELEMETRY,
    };
    expect(renderStatusSummary(report)).toBe(
      [
        'monitor 2026-01-31T12:02:05.000Z: 2 teams, 1 healthy, 1 unhealthy; 1 unacknowledged signal (meta: 1)',
        '- docs (deliverable, active): failed for 2m — failed: sources inaccessible',
        '- api (deliverable, active): scanning for 2m — ok',
      ].join('\n'),
    );
  });

  it('stays short with many teams', () => {
    const teams = Array.from({ length: 25 }, (_, i) => team(`t${i}`, true));
    const report: MonitorReport = {
      generatedAt: '2026-01-31T12:00:00.000Z',
      root: '/r',
      staleAfterMinutes: 10,
      teams,
      meta: { inbox: { total: 0, unacknowledged: 0 }, outbox: { total: 0, unacknowledged: 0 } },
      totals: { teams: 25, healthy: 25, unhealthy: 0, unacknowledged: 0 },
      stuckSignals: [],
      archivedSignals: 0,
      telemetry: NO_TELEMETRY,
    };
    const lines = renderStatusSummary(report).split('\n');
    expect(lines).toHaveLength(22);
    expect(lines.at(-1)).toBe('… and 5 more (fed monitor shows them all)');
  });

  it('cuts a long failure reason to one line, in the monitor table and in chat, saying where it is in full', () => {
    const reason = `failed: ${'the required information cannot be found in the sources; '.repeat(4)}\nsee the log`;
    const report: MonitorReport = {
      generatedAt: '2026-01-31T12:02:05.000Z',
      root: '/r',
      staleAfterMinutes: 10,
      teams: [team('docs', false, [reason]), team('api', true)],
      meta: { inbox: { total: 0, unacknowledged: 0 }, outbox: { total: 0, unacknowledged: 0 } },
      totals: { teams: 2, healthy: 1, unhealthy: 1, unacknowledged: 0 },
      stuckSignals: [],
      archivedSignals: 0,
      telemetry: NO_TELEMETRY,
    };
    const cut = `${reason.slice(0, 79)}… (in full: fed monitor --json)`;
    const summary = renderStatusSummary(report).split('\n');
    expect(summary).toHaveLength(3);
    expect(summary[1]).toBe(`- docs (deliverable, active): failed for 2m — ${cut}`);
    const table = renderMonitorReport(report).split('\n');
    expect(table[1]).toMatch(/^docs .* failed: the required information/);
    expect(table[1]!.endsWith(cut)).toBe(true);
    expect(table[2]).toMatch(/^api .* ok$/);
  });
});
