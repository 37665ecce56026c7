// Types only: the NATS client initialises when a JetStream federation is opened (import()), never with `fed`'s
// commands; its policies are the string values the types name.
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { DispatchQueue, TakenWork } from '../../ports/dispatch-queue.js';
import type { FederationStreams } from './federation-streams.js';
import { isStreamNameInUse, isStreamNotFound, isSubjectFull } from './jetstream-errors.js';
import type { JetStreamNames } from './names.js';
import { explainReplicasRefusal } from './replicas-refusal.js';
import { retryTransient } from './transient.js';

/** JetStream's durations are nanoseconds (what the client's `nanos` computes, without loading the client). */
const NANOS_PER_MS = 1_000_000;

/** The one consumer every host's server takes work through: each message goes to one of them at a time. */
export const WORK_CONSUMER = 'serve';
/** How long the server remembers a message id: an offer of the same work within it is queued once. */
const DEDUPE_WINDOW_MS = 10 * 60_000;

/**
 * Unplaced teams' pending work as the stream `FED_<name>_WORK`: work-queue retention (a message leaves
 * once acknowledged), one subject per team holding at most one message (a further offer is refused while
 * one is queued or taken), deduplicated by message id `<team>:<key>`. Taken through one durable pull
 * consumer with explicit acknowledgement: a message not acknowledged within the ack wait (its taker died)
 * is delivered again, to whichever server asks next. Stream and consumer are made on first use.
 */
export class JetStreamDispatchQueue implements DispatchQueue {
  readonly location: string;
  private consumer: Promise<Consumer> | undefined;
  private ackWaitMs: number | undefined;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} stream ${names.workStream}`;
  }

  async offer(team: string, key: string): Promise<void> {
    const { session } = await this.streams();
    await this.ensureStream();
    try {
      await retryTransient(() => session.js.publish(this.subject(team), key, { msgID: `${team}:${key}` }));
    } catch (error) {
      // Work of the team is queued or taken already: its taker offers what is left once its launch ends.
      if (!isSubjectFull(error)) throw error;
    }
  }

  async take(waitMs: number, ackWaitMs: number): Promise<TakenWork | undefined> {
    const consumer = await this.consumerFor(ackWaitMs);
    const message = await retryTransient(() => consumer.next({ expires: Math.max(1_000, waitMs) }));
    return message ? taken(message) : undefined;
  }

  private subject(team: string): string {
    return `fed.${this.names.federation}.work.${team}`;
  }

  private async ensureStream(): Promise<void> {
    const { session } = await this.streams();
    const name = this.names.workStream;
    try {
      await retryTransient(() => session.jsm.streams.info(name));
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
      await retryTransient(() =>
        session.jsm.streams.add({
          name,
          subjects: [`fed.${this.names.federation}.work.*`],
          storage: 'file',
          retention: 'workqueue',
          max_msgs_per_subject: 1,
          discard: 'new',
          discard_new_per_subject: true,
          num_replicas: session.replicas,
          duplicate_window: DEDUPE_WINDOW_MS * NANOS_PER_MS,
        }),
      ).catch((addError: unknown) => {
        // Another server made it meanwhile.
        if (!isStreamNameInUse(addError)) throw explainReplicasRefusal(session, addError);
      });
    }
  }

  private consumerFor(ackWaitMs: number): Promise<Consumer> {
    if (this.consumer && this.ackWaitMs === ackWaitMs) return this.consumer;
    this.ackWaitMs = ackWaitMs;
    this.consumer = (async () => {
      const { session } = await this.streams();
      await this.ensureStream();
      // Adding a durable consumer again with the same settings is a no-op; with another ack wait, an update.
      const config = {
        durable_name: WORK_CONSUMER,
        ack_policy: 'explicit' as const,
        ack_wait: ackWaitMs * NANOS_PER_MS,
      };
      await retryTransient(() => session.jsm.consumers.add(this.names.workStream, config)).catch(() =>
        retryTransient(() => session.jsm.consumers.update(this.names.workStream, WORK_CONSUMER, config)),
      );
      return session.js.consumers.get(this.names.workStream, WORK_CONSUMER);
    })();
    this.consumer.catch(() => (this.consumer = undefined));
    return this.consumer;
  }
}

function taken(message: JsMsg): TakenWork {
  const team = message.subject.slice(message.subject.lastIndexOf('.') + 1);
  return {
    team,
    key: message.string(),
    working: () => message.working(),
    done: async () => {
      await message.ackAck();
    },
    retry: (delayMs) => message.nak(delayMs),
  };
}
