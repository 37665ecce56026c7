import { describe, expect, it } from 'vitest';
import { FedEventError } from '../../src/fed-event.js';
import { afterReports, reportsInOrder } from '../../src/reports-in-order.js';

/** A reporter the test answers: each report is on its way at once and waits for `answer`. */
function heldReporter() {
  const inFlight: { type: string; settle: (error?: Error) => void }[] = [];
  const sent: string[] = [];
  const report = (type: string, _data: Record<string, unknown>, onSent?: () => void) =>
    new Promise<string>((resolve, reject) => {
      sent.push(type);
      inFlight.push({ type, settle: (error) => (error ? reject(error) : resolve('')) });
      onSent?.();
    });
  const answer = async (error?: Error) => {
    await expect.poll(() => inFlight.length).toBe(1);
    inFlight.shift()!.settle(error);
  };
  return { report, sent, inFlight, answer };
}

const refusal = () => new FedEventError('fed event X exited 2: team "docs" is paused');

describe("fed-agent's reports in order", () => {
  it('sends one at a time, in order, even when the sends are not awaited in between', async () => {
    const { report, sent, inFlight, answer } = heldReporter();
    const reports = reportsInOrder(report);
    const first = reports.send('A', {});
    const second = reports.send('B', {});
    await first;
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(inFlight.map((r) => r.type)).toEqual(['A']);
    await answer();
    await second;
    expect(inFlight.map((r) => r.type)).toEqual(['B']);
    await answer();
    await reports.applied();
    expect(sent).toEqual(['A', 'B']);
  });

  it('after a refusal nothing more is sent, and the next send throws it', async () => {
    const { report, sent, answer } = heldReporter();
    const reports = reportsInOrder(report);
    await reports.send('A', {});
    const refused = refusal();
    await answer(refused);
    await expect(reports.send('B', {})).rejects.toBe(refused);
    await expect(reports.applied()).rejects.toBe(refused);
    expect(sent).toEqual(['A']);
  });

  it("a work's outcome waits for its last report; its failure too, and a refusal of that report comes first", async () => {
    for (const [work, report, expected] of [
      ['returns', 'applied', 'done'],
      ['throws', 'applied', 'broke'],
      ['throws', 'refused', 'refused'],
      ['returns', 'refused', 'refused'],
    ] as const) {
      const { report: reporter, answer } = heldReporter();
      const reports = reportsInOrder(reporter);
      const refused = refusal();
      let settled = false;
      const outcome = afterReports(
        reports,
        (async () => {
          await reports.send('A', {});
          if (work === 'throws') throw new Error('broke');
          return 'done';
        })(),
      ).then(
        (value) => ((settled = true), value),
        (error: Error) => ((settled = true), error === refused ? 'refused' : error.message),
      );
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(settled, `${work}, report ${report}`).toBe(false);
      await answer(report === 'refused' ? refused : undefined);
      expect(await outcome, `${work}, report ${report}`).toBe(expected);
    }
  });
});
