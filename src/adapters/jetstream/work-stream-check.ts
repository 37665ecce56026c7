import type { StreamInfo } from '@nats-io/jetstream';
import type { BackendChecks } from '../../ports/doctor-finding.js';
import type { JetStreamSession } from './connect-jetstream.js';
import { WORK_CONSUMER } from './jetstream-dispatch-queue.js';
import { isConsumerNotFound, isStreamNotFound } from './jetstream-errors.js';
import { retryTransient } from './transient.js';

/** How to remake the work stream: its pending work is read again from the teams' state, so nothing is lost. */
const remake = (name: string) =>
  `stop every fed serve of the federation, remove it (nats stream rm ${name}), then start them again: the first makes it anew and offers the unplaced teams' pending work again (it is read from the teams' state)`;

/**
 * `fed doctor`'s look at the unplaced teams' work queue (stream `FED_<name>_WORK`, jetstream-dispatch-queue.ts):
 * made by the first `fed serve` with an unplaced team's work, so its absence is a note, not a problem. Present,
 * it must have work-queue retention (a message leaves once its taker acknowledges it; with limits retention
 * every dispatch would stay queued and run again) and at most one message per team; the consumer `serve`
 * every server takes through must acknowledge explicitly. Its counts — waiting, taken and not yet
 * acknowledged — are a note. Returns the stream's info too, for the replica check of every stream.
 */
export async function checkWorkStream(
  session: JetStreamSession,
  where: string,
): Promise<BackendChecks & { info?: StreamInfo }> {
  const name = session.names.workStream;
  const path = `${where} stream ${name}`;
  let info: StreamInfo;
  try {
    info = await retryTransient(() => session.jsm.streams.info(name));
  } catch (error) {
    if (!isStreamNotFound(error)) throw error;
    return {
      findings: [],
      notes: [`work queue ${name}: not made yet (the first fed serve with an unplaced team's work makes it)`],
      reachable: true,
    };
  }
  const { config } = info;
  if (config.retention !== 'workqueue' || config.max_msgs_per_subject !== 1)
    return {
      info,
      findings: [
        {
          check: 'backend',
          path,
          problem: `stream ${name} is not the unplaced teams' work queue fed makes: it has ${config.retention} retention and ${config.max_msgs_per_subject === -1 ? 'no limit of' : config.max_msgs_per_subject} message(s) per team, where fed needs work-queue retention and 1 (a dispatch acknowledged would stay queued, or one team's work queued twice)`,
          fix: remake(name),
        },
      ],
      notes: [],
      reachable: true,
    };
  try {
    const consumer = await retryTransient(() => session.jsm.consumers.info(name, WORK_CONSUMER));
    if (consumer.config.ack_policy !== 'explicit')
      return {
        info,
        findings: [
          {
            check: 'backend',
            path: `${path} consumer ${WORK_CONSUMER}`,
            problem: `consumer ${WORK_CONSUMER} of ${name} acknowledges "${consumer.config.ack_policy}", where fed needs "explicit": work taken by a server that died would never be given to another`,
            fix: `stop every fed serve of the federation, remove it (nats consumer rm ${name} ${WORK_CONSUMER}), then start them again: the first makes it anew`,
          },
        ],
        notes: [],
        reachable: true,
      };
    return {
      info,
      findings: [],
      notes: [
        `work queue ${name}: ${consumer.num_pending} waiting, ${consumer.num_ack_pending} taken by a server and not yet acknowledged` +
          (consumer.num_ack_pending > 0 ? ' (work a dead server took goes to another once its ack wait passes)' : ''),
      ],
      reachable: true,
    };
  } catch (error) {
    if (!isConsumerNotFound(error)) throw error;
    return {
      info,
      findings: [],
      notes: [
        `work queue ${name}: ${info.state.messages} waiting, no server has taken work from it yet (the first fed serve with free capacity makes its consumer ${WORK_CONSUMER})`,
      ],
      reachable: true,
    };
  }
}
