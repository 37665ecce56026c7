import { describe, expect, it } from 'vitest';
import { type DeliveryFactStore, openFederation, sendSignal } from 'fed';
import { entries, signalFederation } from '../../helpers/signal-federation.js';

const fast = { durable: false };

/**
 * A federation whose delivery fact store claims ids alongside the publish (as JetStream's does), with
 * `record` replaced: what a send does when the claim it made with the publish fails, or is refused.
 */
async function federationClaimingAlongside(record: DeliveryFactStore['record']) {
  const fed = await signalFederation(['docs']);
  const opened = openFederation(fed.root);
  const delivery = Object.create(opened.backend.delivery, {
    claimsAlongsidePublish: { value: true },
    record: { value: record },
  }) as DeliveryFactStore;
  return { fed, federation: openFederation(fed.root, { backend: { ...opened.backend, delivery } }) };
}

describe('a send whose id claim goes with its publish (claimsAlongsidePublish)', () => {
  it('delivers when the claim fails, and says so in a warning rather than failing (the caller would send again)', async () => {
    const { fed, federation } = await federationClaimingAlongside(async () => {
      throw new Error('the store is gone');
    });
    const sent = await sendSignal(federation, { to: 'docs', type: 'report', subject: 'Done' }, fast);
    expect(sent.delivered).toBe(true);
    expect(entries(fed.team('docs').inbox)).toEqual([sent.file]);
    expect(sent.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^signal ${sent.message.id} was delivered, but its id could not be claimed in .*: the store is gone$`,
        ),
      ),
    ]);
  });

  it('still claims an id the caller chose before publishing: a failed claim publishes nothing', async () => {
    const { fed, federation } = await federationClaimingAlongside(async () => {
      throw new Error('the store is gone');
    });
    await expect(
      sendSignal(
        federation,
        { to: 'docs', type: 'report', subject: 'Done', id: '3f2b8a34-7c1e-4d5a-9b0e-2f6c8d4e1a7b' },
        fast,
      ),
    ).rejects.toThrow('the store is gone');
    expect(entries(fed.team('docs').inbox)).toEqual([]);
  });
});
