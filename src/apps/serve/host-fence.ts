import { describeMs } from '../../core/schema/duration.js';
import type { Federation } from '../../engine/context.js';
import { fenceAfterMs, leastLostAfterMs, ownLostAfterMs } from '../hosts/host-liveness.js';
import { LaunchFenced } from '../launch/launch-options.js';
import { stopTakesAtMostMs } from '../launch/supervise/agent-process.js';
import type { Dispatcher } from './dispatcher.js';

/**
 * The store writes a heartbeat as it receives it and acknowledges it at once: the record is no older than
 * its acknowledgement less this much, even for a heartbeat the client held until it had reconnected.
 */
const ACK_TRANSIT_MS = 1_000;

/**
 * Fencing of a host's agents. While its heartbeat is written, a host holds the teams placed on it; the
 * others take it for lost — and may run its teams — once they have not heard from it for hostLostAfter. So
 * once no heartbeat has been written for `fenceMs` (host-liveness.ts fenceAfterMs: hostLostAfter less the
 * agents' stop and a margin) `onFenced` stops its agents: the holder gives up strictly before anyone may
 * take over. The next heartbeat written lifts the fence (`onLifted`).
 */
export class HostFence {
  private timer: NodeJS.Timeout | undefined;
  private fenced = false;
  private stopped = false;

  constructor(
    private readonly fenceMs: number,
    private readonly onFenced: () => void,
    private readonly onLifted: () => void,
  ) {}

  /**
   * A heartbeat sent at `sentAt` was acknowledged at `ackedAt` (ms, this machine's clock): the fence is
   * counted from the earliest moment the store may have written it.
   */
  written(sentAt: number, ackedAt: number): void {
    // A beat still in flight when the server stopped lands after it: no fence is started again.
    if (this.stopped) return;
    clearTimeout(this.timer);
    const writtenAt = Math.max(sentAt, ackedAt - ACK_TRANSIT_MS);
    this.timer = setTimeout(() => this.fence(), writtenAt + this.fenceMs - Date.now());
    if (!this.fenced) return;
    this.fenced = false;
    this.onLifted();
  }

  /** No more fencing (the server stops). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private fence(): void {
    this.fenced = true;
    this.onFenced();
  }
}

/**
 * This host's fence on a federation shared across machines: its agents stopped through `dispatcher` (each
 * launch aborted with a LaunchFenced) and none started while no heartbeat is written, every step told. None
 * when hostLostAfter leaves no room to stop the agents before a loss: said once, with what would.
 */
export function fenceAgents(
  fed: Federation,
  host: string,
  graceMs: number,
  dispatcher: Pick<Dispatcher, 'fence' | 'unfence'>,
  warn: (text: string) => void,
): HostFence | undefined {
  if (!fed.backend.hosts) return undefined;
  const serve = fed.config.serve;
  const stopMs = stopTakesAtMostMs(graceMs);
  const fenceMs = fenceAfterMs(serve, stopMs);
  const lostAfter = describeMs(ownLostAfterMs(serve));
  if (fenceMs === undefined) {
    warn(
      `host ${host}'s agents are not fenced: serve.hostLostAfter (${lostAfter}) leaves no time to stop them (up to ${describeMs(stopMs)}) before the other hosts may take this host for lost, so one cut off from the NATS server could run a team beside the host that took it over; make serve.hostLostAfter longer than ${describeMs(leastLostAfterMs(serve, stopMs))}`,
    );
    return undefined;
  }
  return new HostFence(
    fenceMs,
    () => {
      const stopped = dispatcher.fence(
        new LaunchFenced(
          `stopped: host ${host}'s heartbeat was not written for ${describeMs(fenceMs)}, and the other hosts may take it for lost after ${lostAfter} and run its teams`,
        ),
      );
      const agents = stopped.length ? `its agents are stopped (${stopped.join(', ')}) and ` : '';
      warn(
        `host ${host}'s heartbeat has not been written for ${describeMs(fenceMs)}: ${agents}no agent starts here, before the other hosts may take it for lost; its teams are dispatched again once its heartbeat is written`,
      );
    },
    () => {
      dispatcher.unfence();
      warn(`host ${host}'s heartbeat is written again: its teams are dispatched again`);
    },
  );
}
