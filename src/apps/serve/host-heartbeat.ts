import { RefusedError } from '../../core/errors.js';
import type { HostRecord } from '../../core/schema/host.js';
import type { Federation } from '../../engine/context.js';
import { packageVersion } from '../../infra/package-info.js';
import { waitAtMost } from '../../infra/repeat.js';
import type { HostDirectory } from '../../ports/host-directory.js';
import { heartbeatMs, hostState } from '../hosts/host-liveness.js';
import type { StoreContact } from '../hosts/store-contact.js';
import type { HostFence } from './host-fence.js';

export interface HeartbeatOptions {
  host: string;
  capacity: number;
  /** The teams whose agents run now, told in every renewal. */
  running: () => string[];
  /** This server's touch with the store, told of every renewal written, or not. */
  contact: StoreContact;
  /** The fence of this host's agents, told of every renewal written (none when hostLostAfter leaves no room). */
  fence?: HostFence;
  /** After each renewal (or failed one): what else the server does on the heartbeat (lost hosts, failover). */
  onBeat: () => Promise<void>;
  onWarning: (text: string) => void;
}

export interface HostHeartbeat {
  /** Stop renewing; `stopped` (a stop on purpose) leaves the record saying so, so the host is not taken as lost. */
  stop(stopped: boolean): Promise<void>;
}

/** How long stopping waits for the last heartbeat, and then for the record saying it stopped. */
const STOP_WAIT_MS = 5_000;

/**
 * A server's host record on a federation shared across machines: announced when it starts — refused
 * when another working directory serves under the same name and is alive —, renewed every heartbeat with
 * its running agents, and marked stopped when it stops. Undefined on files (one machine, no record).
 */
export async function startHeartbeat(fed: Federation, options: HeartbeatOptions): Promise<HostHeartbeat | undefined> {
  const directory = fed.backend.hosts;
  if (!directory) return undefined;
  await refuseNameTaken(fed, directory, options.host);
  const everyMs = heartbeatMs(fed.config.serve);
  const { contact, fence } = options;
  const startedAt = fed.now().toISOString();
  const record = (stoppedAt: string | null): HostRecord => ({
    name: options.host,
    root: fed.root,
    pid: process.pid,
    version: packageVersion(),
    capacity: options.capacity,
    running: options.running(),
    startedAt,
    heartbeatMs: everyMs,
    stoppedAt,
  });
  const renew = async () => {
    const sentAt = Date.now();
    await directory.put(record(null));
    contact.answered(fed.now());
    fence?.written(sentAt, Date.now());
  };
  await renew();
  let failing: string | undefined;
  const beat = async () => {
    try {
      await renew();
      failing = undefined;
    } catch (error) {
      contact.failed();
      // The server goes on; unless a later one is written, the others will see this host as lost (and its
      // fence stops its agents before they may).
      const text = `host ${options.host}'s heartbeat was not written to ${directory.location}: ${(error as Error).message}`;
      if (failing !== text) options.onWarning(text);
      failing = text;
    }
    await options.onBeat().catch((error: unknown) => options.onWarning((error as Error).message));
  };
  let beating: Promise<void> = Promise.resolve();
  // One beat at a time: a slow write is never overtaken by the next.
  const timer = setInterval(() => (beating = beating.then(beat)), everyMs);
  return {
    async stop(stopped) {
      clearInterval(timer);
      fence?.stop();
      // A store that cannot be reached (its broker down) holds a write until it reconnects: that must not
      // keep the server from stopping. The others then see this host lost, after serve.hostLostAfter.
      let beaten = false;
      await waitAtMost(
        beating.then(() => (beaten = true)),
        STOP_WAIT_MS,
      );
      if (!stopped) return;
      let marked = false;
      // A beat still held by the store will not be followed by this write sooner: not waited for twice.
      const marking = beaten
        ? directory.put(record(fed.now().toISOString())).then(
            () => (marked = true),
            () => undefined,
          )
        : undefined;
      if (marking) await waitAtMost(marking, STOP_WAIT_MS);
      if (!marked)
        options.onWarning(
          `host ${options.host} could not be marked stopped in ${directory.location}: the others will take it as lost`,
        );
    },
  };
}

/** Two servers under one name would each take the other's teams as theirs: the second is refused by name. */
async function refuseNameTaken(fed: Federation, directory: HostDirectory, host: string): Promise<void> {
  const heard = await directory.get(host);
  if (!heard || heard.record.root === fed.root) return;
  const { state } = hostState(fed.config.serve, heard, fed.now());
  if (state !== 'alive') return;
  throw new RefusedError(
    'HOST_NAME_TAKEN',
    `host name ${host} is served already, from ${heard.record.root} (pid ${heard.record.pid}); each working directory that serves the federation needs a name of its own — set "serve": { "hostName": "<name>" } in federate.config.json, or give fed serve --host-name <name>`,
  );
}
