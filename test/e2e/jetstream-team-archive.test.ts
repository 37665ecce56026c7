import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { skipWithoutNatsServer } from '../helpers/nats-server.js';
import { useNatsServer } from '../helpers/use-nats-server.js';
import { tempDir } from '../helpers/temp-dir.js';

const SUITE = 'fed team archive on JetStream returns only what the team never acknowledged';

describe.skipIf(skipWithoutNatsServer(SUITE))(SUITE, () => {
  const server = useNatsServer();

  it('an acknowledged signal is not undeliverable, and its sender gets no alert about it', async () => {
    const root = tempDir('fed-machine-');
    const fed = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runFed(['--root', root, ...args], { env: { FED_NATS_URL: server().url, ...env }, timeoutMs: 60_000 });
    const ok = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
      const result = await fed(args, env);
      expect(result, result.stderr).toMatchObject({ code: 0 });
      return result.stdout;
    };
    await ok(['init', '--name', 'acme']);
    await ok(['team', 'onboard', 'docs']);
    const send = (id: string, subject: string) =>
      ok(['signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', subject, '--body', 'fyi', '--id', id]);
    const taken = randomUUID();
    const untaken = randomUUID();
    await send(taken, 'Taken');
    await send(untaken, 'Never taken');
    await ok(['signal', 'ack', taken, '--json'], { FED_TEAM: 'docs' });

    const archived = JSON.parse(await ok(['team', 'archive', 'docs', '--json'])) as { undeliverable: string[] };
    expect(archived.undeliverable).toEqual([untaken]);
    const alerts = (
      JSON.parse(await ok(['signal', 'list', '--team', 'meta', '--type', 'alert', '--json'])) as {
        signals: Array<{ message: { subject: string } }>;
      }
    ).signals.map((a) => a.message.subject);
    expect(alerts).toEqual(['Undeliverable: Never taken']);
    const shown = JSON.parse(await ok(['signal', 'show', taken, '--json'])) as { delivery: { state: string } };
    expect(shown.delivery.state).toBe('acknowledged');

    // Nor does a later monitor cycle find it stuck.
    const cycle = JSON.parse(await ok(['monitor', '--json'])) as { stuckSignals: Array<{ id: string }> };
    expect(cycle.stuckSignals.map((s) => s.id)).not.toContain(taken);
  }, 120_000);
});
