import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { KV } from '@nats-io/kv';
import { z } from 'zod';
import { toJsonText } from '../../core/json-text.js';
import { LockLostError, LockTimeoutError } from '../../infra/fs/lock.js';
import { currentProcessStartTime, processIsAlive } from '../../infra/fs/process-identity.js';
import { randomUuid } from '../../infra/crypto/random.js';
import { isoTimestamp } from '../../core/schema/common.js';
import { lockOwnerSchema, type LockOwner } from '../../core/schema/lock-owner.js';
import { isWrongLastSequence } from './jetstream-errors.js';
import { retryTransient } from './transient.js';

/** A lease record in KV: the lock owner (as in lock files) and when the holder last said it is alive. */
const leaseSchema = lockOwnerSchema.extend({ heartbeatAt: isoTimestamp });
type Lease = z.infer<typeof leaseSchema>;

export interface KvLeaseOptions {
  /** A holder on another host that has not renewed its lease for this long is gone (default 10 s). */
  staleMs?: number;
  /** Give up waiting for a live holder after this long (default 60 s). */
  timeoutMs?: number;
}

/** A held lease: renewed in the background until released; `assertHeld` throws once it was lost. */
export interface HeldLease {
  readonly owner: LockOwner;
  assertHeld(): void;
  release(): Promise<void>;
}

const decode = (value: Uint8Array): Lease | undefined => {
  try {
    const parsed = leaseSchema.safeParse(JSON.parse(new TextDecoder().decode(value)));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/**
 * An exclusive lease held as a KV entry, for one writer per team across machines. Taking it is a KV
 * create (one winner); taking over is a compare-and-swap on the revision judged abandoned (one winner
 * again). As with lock files, a holder on this host is judged by its process (pid and start time) and
 * is taken over as soon as it is gone; a holder on another host by its heartbeat, renewed every third of
 * `staleMs` (a lease left unrenewed for `staleMs` is abandoned). A holder whose renewal finds the lease taken has lost it and must not write.
 */
export async function acquireKvLease(
  kv: KV,
  key: string,
  what: string,
  options: KvLeaseOptions = {},
): Promise<HeldLease> {
  const staleMs = options.staleMs ?? 10_000;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const started = Date.now();
  const owner: LockOwner = {
    pid: process.pid,
    host: hostname(),
    token: randomUuid(),
    acquiredAt: new Date().toISOString(),
    ...(currentProcessStartTime() !== undefined && { startTime: currentProcessStartTime() }),
  };
  const record = () => toJsonText({ ...owner, heartbeatAt: new Date().toISOString() } satisfies Lease);

  let revision: number | undefined;
  let seen: { revision: number; at: number } | undefined;
  for (let attempt = 1; revision === undefined; attempt++) {
    const entry = await retryTransient(() => kv.get(key));
    try {
      if (!entry || entry.operation !== 'PUT') {
        revision = await retryTransient(() =>
          entry ? kv.update(key, record(), entry.revision) : kv.create(key, record()),
        );
        break;
      }
      const holder = decode(entry.value);
      if (seen?.revision !== entry.revision) seen = { revision: entry.revision, at: Date.now() };
      // Every renewal makes a new revision, so one unchanged for staleMs by our own clock was not renewed
      // (no comparison of clocks across machines).
      const gone =
        holder !== undefined && holder.host === owner.host
          ? !processIsAlive(holder.pid, holder.startTime)
          : Date.now() - seen.at > staleMs;
      if (gone) {
        revision = await retryTransient(() => kv.update(key, record(), entry.revision));
        break;
      }
      if (Date.now() - started > timeoutMs)
        throw new LockTimeoutError(`${what} (${key})`, holder, Date.now() - started);
    } catch (error) {
      // The server's "wrong last sequence": another process took or renewed the lease first; look again.
      if (!isWrongLastSequence(error)) throw error;
    }
    await sleep(Math.min(250, 5 * attempt) * (0.5 + Math.random()));
  }

  let lost: LockOwner | undefined | null = null;
  let renewal: Promise<void> = Promise.resolve();
  const renew = async () => {
    if (lost !== null || revision === undefined) return;
    try {
      revision = await retryTransient(() => kv.update(key, record(), revision!), staleMs);
    } catch (error) {
      const now = await kv.get(key).catch(() => null);
      lost = now ? decode(now.value) : undefined;
      if (!isWrongLastSequence(error)) lost ??= undefined;
    }
  };
  const timer = setInterval(() => (renewal = renewal.then(renew)), Math.max(100, Math.floor(staleMs / 3)));
  timer.unref();

  return {
    owner,
    assertHeld: () => {
      if (lost !== null) throw new LockLostError(`${what} (${key})`, lost);
    },
    release: async () => {
      clearInterval(timer);
      await renewal;
      if (lost !== null || revision === undefined) return;
      // Only our own record is removed: a takeover since then keeps the new holder's.
      await retryTransient(() => kv.delete(key, { previousSeq: revision })).catch((error: unknown) => {
        // The server's "wrong last sequence": the lease was taken over since; it is not ours to remove.
        if (!isWrongLastSequence(error)) throw error;
      });
    },
  };
}

/**
 * The holder of the lease at `key` that may still be alive, without taking it: on this host by its
 * process; on another by its last heartbeat, within `staleMs` by this machine's clock (a reader has no
 * revision history to time, unlike a waiter); one whose record cannot be read counts as alive. Undefined
 * when there is no holder, or it is gone.
 */
export async function kvLeaseHolder(
  kv: KV,
  key: string,
  options: Pick<KvLeaseOptions, 'staleMs'> = {},
): Promise<{ owner: LockOwner | undefined } | undefined> {
  const entry = await retryTransient(() => kv.get(key));
  if (!entry || entry.operation !== 'PUT') return undefined;
  const holder = decode(entry.value);
  if (holder === undefined) return { owner: undefined };
  const alive =
    holder.host === hostname()
      ? processIsAlive(holder.pid, holder.startTime)
      : Date.now() - Date.parse(holder.heartbeatAt) <= (options.staleMs ?? 10_000);
  return alive ? { owner: holder } : undefined;
}
