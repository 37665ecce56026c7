import { spawn } from 'node:child_process';
import { readdirSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Federation, initFederation, onboardTeam, openFederation, sendSignal, type SignalTransport } from 'fed';
import {
  acquireLock,
  getTeam,
  publishFileNoClobber,
  readRegistry,
  releaseLock,
  signalFileName,
  SignalOutboxCopyError,
  toJsonText,
  workspacePaths,
} from 'fed/testing';
import { FED_BIN, runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const ID = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

async function federation(): Promise<{ root: string; inbox: string }> {
  const root = tempDir();
  initFederation(root, {}, {});
  await onboardTeam(openFederation(root), { domain: 'docs' });
  return { root, inbox: workspacePaths(getTeam(readRegistry(root), 'docs').location).inbox };
}

const signalFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json'));

/**
 * The federation at `root`, where `meanwhile` runs once a send's route is checked and before it delivers:
 * what a box that breaks during a send does (an I/O error the checks could not foresee).
 */
function breakingAfterChecks(root: string, meanwhile: () => void): Federation {
  const opened = openFederation(root);
  const signals: SignalTransport = Object.create(opened.backend.signals, {
    prepareSend: {
      value: async (...args: Parameters<SignalTransport['prepareSend']>) => {
        const send = await opened.backend.signals.prepareSend(...args);
        meanwhile();
        return send;
      },
    },
  });
  return openFederation(root, { backend: { ...opened.backend, signals } });
}

/** `dir` (a folder) set aside and a file put where it was; the returned function puts it back. */
function fileInsteadOf(dir: string): () => void {
  renameSync(dir, `${dir}.away`);
  writeFileSync(dir, 'not a folder');
  return () => {
    rmSync(dir);
    renameSync(`${dir}.away`, dir);
  };
}

describe('retries of one send (same --id)', () => {
  it('an outbox copy that fails after delivery says the signal was delivered and gives the id; the retry completes it without a second delivery', async () => {
    const { root, inbox } = await federation();
    const outbox = workspacePaths(root).outbox;
    let restore = () => {};
    const request = { to: 'docs', type: 'directive', subject: 'work' };
    const federationBreaking = breakingAfterChecks(root, () => (restore = fileInsteadOf(outbox)));
    const error = await sendSignal(federationBreaking, request, { durable: false }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SignalOutboxCopyError);
    const { signalId } = error as SignalOutboxCopyError;
    expect((error as Error).message).toMatch(
      new RegExp(
        `^signal ${signalId} was delivered \\(.*inbox.*\\), but its copy in the outbox .* could not be written: .*re-run the same command with --id ${signalId}`,
      ),
    );
    expect(signalFiles(inbox)).toHaveLength(1);
    restore();
    const retry = await sendSignal(openFederation(root), { ...request, id: signalId }, { durable: false });
    expect(retry.delivered).toBe(false);
    expect(signalFiles(inbox)).toHaveLength(1);
    expect(signalFiles(outbox)).toEqual([retry.file]);
  });

  it('a send whose delivery fails after its id was claimed keeps the claim: the retry with the id delivers it once', async () => {
    const { root, inbox } = await federation();
    let restore = () => {};
    const request = { to: 'docs', type: 'directive', subject: 'work', id: ID };
    const failing = breakingAfterChecks(root, () => (restore = fileInsteadOf(inbox)));
    await expect(sendSignal(failing, request, { durable: false })).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(readdirSync(join(root, '.fed', 'delivery'))).toEqual([`${ID}.sent.json`]);
    restore();
    expect(signalFiles(inbox)).toEqual([]);
    const retry = await sendSignal(openFederation(root), request, { durable: false });
    expect(retry.delivered).toBe(true);
    expect(signalFiles(inbox)).toEqual([retry.file]);
    const again = await sendSignal(openFederation(root), request, { durable: false });
    expect(again).toMatchObject({ delivered: false, file: retry.file });
  });

  it('a retry waits for a retry of the same id that is still running, then finds its copy', async () => {
    const { root, inbox } = await federation();
    const signals = join(inbox, '..');
    const lockName = `.send-${ID}.lock`;
    // This test is the other retry, mid-send: it holds the lock of the id.
    const held = await acquireLock(join(signals, lockName));
    const attempts: string[] = [];
    const watcher = watch(signals, (_event, name) => {
      if (name && name !== lockName && name.includes(lockName)) attempts.push(name);
    });
    const child = spawn(
      process.execPath,
      [
        FED_BIN,
        '--root',
        root,
        'signal',
        'send',
        '--to',
        'docs',
        '--type',
        'directive',
        '--subject',
        'work',
        '--id',
        ID,
      ],
      {
        env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let done = false;
    void exited.then(() => (done = true));
    try {
      // Either the second retry is seen trying to take the lock, or it finished without waiting (the bug).
      const deadline = Date.now() + 30_000;
      while (!done && attempts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(done, 'the retry finished while another retry of the same id held its lock').toBe(false);
      expect(signalFiles(inbox)).toEqual([]);
      // The first retry delivers (as sendSignal does under the lock), then lets go. Concurrent with the
      // send that claimed the id, it stores the signal under that send's time, where that send looks
      // (retryMessage): under the time it gets to the lock, a loaded machine's second later, it would not be found.
      const claimed = await openFederation(root).backend.delivery.get(ID, 'sent');
      expect(claimed, 'the waiting retry claimed the id before taking the lock').toBeDefined();
      const message = {
        id: ID,
        timestamp: claimed!.timestamp,
        from: 'meta',
        to: 'docs',
        type: 'directive' as const,
        subject: 'work',
        body: '',
        protocol: 'file-signal-v1' as const,
      };
      publishFileNoClobber(inbox, signalFileName(message), toJsonText(message), { durable: false });
    } finally {
      watcher.close();
      releaseLock(held);
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain(`signal ${ID} was already delivered`);
    expect(signalFiles(inbox)).toHaveLength(1);
  });

  it('concurrent retries of one send deliver it once', async () => {
    const { root, inbox } = await federation();
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        runFed([
          '--root',
          root,
          'signal',
          'send',
          '--to',
          'docs',
          '--type',
          'directive',
          '--subject',
          'work',
          '--id',
          ID,
        ]),
      ),
    );
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(signalFiles(inbox)).toHaveLength(1);
    expect(runs.filter((r) => !r.stderr.includes('already delivered'))).toHaveLength(1);
  });
});
