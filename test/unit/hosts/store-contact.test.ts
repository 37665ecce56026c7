import { describe, expect, it } from 'vitest';
import { StoreContact } from '../../../src/apps/hosts/store-contact.js';

/** A server's touch with the store, heartbeat 5 s: unbroken while it answers about every heartbeat. */
describe("a server's touch with the store", () => {
  const at = (s: number) => new Date(Date.parse('2026-11-26T02:00:00Z') + s * 1_000);

  it('runs from the first answer for as long as answers come about a heartbeat apart', () => {
    const contact = new StoreContact(5_000);
    for (const s of [0, 5, 10, 16.5, 20]) contact.answered(at(s));
    expect(contact.since(at(21))).toEqual(at(0));
  });

  it('starts again at the first answer after a break: a write held through an outage, a stalled server', () => {
    const contact = new StoreContact(5_000);
    contact.answered(at(0));
    contact.answered(at(5));
    // A heartbeat's write that took 20 s lands: the store (or this server) was away meanwhile.
    contact.answered(at(25));
    expect(contact.since(at(25))).toEqual(at(25));
    contact.answered(at(30));
    expect(contact.since(at(31))).toEqual(at(25));
  });

  it('is broken now, counting nothing heard, when the last request failed or no answer came lately', () => {
    const contact = new StoreContact(5_000);
    expect(contact.since(at(3))).toEqual(at(3));
    contact.answered(at(0));
    contact.answered(at(5));
    expect(contact.since(at(13))).toEqual(at(13));
    contact.failed();
    expect(contact.since(at(6))).toEqual(at(6));
    contact.answered(at(7));
    expect(contact.since(at(8))).toEqual(at(7));
  });
});
