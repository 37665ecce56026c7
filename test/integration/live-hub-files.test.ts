import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createLiveHub, type LiveEvent, openFileBackend, type SseMessage, updateRegistryIn } from 'fed/testing';
import { initFederation } from 'fed';
import { tempDir } from '../helpers/temp-dir.js';

describe('the live hub on a file federation', () => {
  it('streams a registry change to every client, numbered, and replays it to one that reconnects', async () => {
    const root = tempDir('fed-live-hub-');
    initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
    const backend = openFileBackend(root);
    const hub = createLiveHub(backend.changes);
    onTestFinished(() => hub.close());
    await hub.ready;
    const received: SseMessage[][] = [[], [], []];
    const stops = received.map((messages) => hub.subscribe(undefined, (message) => void messages.push(message)));
    await updateRegistryIn(backend.registry, (registry) => ({ ...registry }), { durable: false });
    await vi.waitFor(() => expect(received.every((messages) => messages.length > 0)).toBe(true), {
      timeout: 10_000,
      interval: 10,
    });
    for (const messages of received) {
      const event = JSON.parse(messages[0]!.data) as LiveEvent;
      expect(messages[0]).toMatchObject({ id: `${hub.run}-1`, event: 'change' });
      expect(event).toMatchObject({ seq: 1, change: { scope: 'registry' } });
    }
    stops.forEach((stop) => stop());
    expect(hub.clients).toBe(0);
    const again: SseMessage[] = [];
    hub.subscribe(`${hub.run}-0`, (message) => void again.push(message));
    expect(again[0]).toMatchObject({ id: `${hub.run}-1`, event: 'change' });
  });
});
