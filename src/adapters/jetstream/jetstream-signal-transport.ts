import { RefusedError } from '../../core/errors.js';
import { toJsonText } from '../../core/json-text.js';
import type { NotSupported } from '../../ports/capability.js';
import type {
  InboxOptions,
  PartyCensus,
  SendRoute,
  SentSignal,
  SignalInbox,
  SignalOutbox,
  SignalReadResult,
  SignalTransport,
  TransportSendOptions,
} from '../../ports/signal-transport.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { SIGNAL_PROTOCOL, type SignalMessage } from '../../core/schema/signal.js';
import { judgeSignal } from '../../core/schema/judge-signal.js';
import { randomUuid } from '../../infra/crypto/random.js';
import type { FederationStreams } from './federation-streams.js';
import { JetStreamInbox } from './jetstream-inbox.js';
import type { JetStreamNames } from './names.js';
import { readSubjectSince } from './read-subject.js';
import { compareEntries, judgeRecord, signalLocation } from './signal-records.js';
import { retryTransient } from './transient.js';

/** The header that tells one send's publishes from another's with the same message id. */
const SEND_HEADER = 'Fed-Send';

/**
 * The client's `headers`, loaded on first use like the connection (a command that never sends does not
 * load it), and once: a dynamic import on every send cost more than the send's own work (profiled: a module
 * resolution per call). Once loaded it is taken without an await, so a send's publish joins the write of its
 * id claim, made just before, instead of a socket write of its own.
 */
let natsHeaders: (typeof import('@nats-io/transport-node'))['headers'] | undefined;

/**
 * file-signal-v1 signals carried by JetStream: one stream per federation, one subject per inbox
 * (`fed.<federation>.inbox.<to>.<from>`), the SignalMessage JSON unchanged as the payload and its id as
 * the message id, so the server drops a repeated publish (a retry after a lost reply, a `--id` resend)
 * instead of storing it twice. The stored message is both the inbox copy and the outbox record.
 */
export class JetStreamSignalTransport implements SignalTransport {
  readonly protocol = SIGNAL_PROTOCOL;
  /** A signal stays in its stream, with its delivery state, for as long as the stream keeps it. */
  readonly archive: NotSupported = {
    supported: false,
    why: 'where nothing is archived: a signal stays in its box and keeps its delivery state (fed signal list --state filters by it)',
  };
  /** A stored message tells its type and time only in its body: a stuck-signal search reads every inbox. */
  readonly stuckCensus: NotSupported = {
    supported: false,
    why: 'where a signal tells its type and time only in its body: every signal of every inbox is read to find the stuck ones',
  };
  private readonly where: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    servers: string,
  ) {
    this.where = `${servers} stream ${names.signalStream}`;
  }

  async send(message: SignalMessage, route: SendRoute, options: TransportSendOptions = {}): Promise<SentSignal> {
    const { js, jsm } = (await this.streams()).session;
    const names = this.names;
    const text = toJsonText(message);
    // Marks this call's publishes: a duplicate carrying it is our own earlier attempt, whose reply was lost.
    natsHeaders ??= (await import('@nats-io/transport-node')).headers;
    const sendMark = natsHeaders();
    sendMark.set(SEND_HEADER, randomUuid());
    const ack = await retryTransient(() =>
      js.publish(names.inboxSubject(route.to.id, route.from.id), text, { msgID: message.id, headers: sendMark }),
    );
    let stored = message;
    // A duplicate on a retried publish may be our own first attempt, whose reply was lost.
    let delivered = !ack.duplicate;
    if (ack.duplicate) {
      // Within the dedupe window the server answers with the first copy's sequence: show that one, and
      // refuse the same id on a different signal, as the file transport does.
      const first = await retryTransient(() => jsm.direct.getMessage(names.signalStream, { seq: ack.seq }));
      const judged = first ? judgeSignal(Buffer.from(first.data), { owner: route.to.id, box: 'inbox' }) : undefined;
      if (judged?.ok) {
        const differing = (['from', 'to', 'type', 'subject', 'body'] as const).filter(
          (key) => judged.value[key] !== message[key],
        );
        const ours = first?.header?.get(SEND_HEADER) === sendMark.get(SEND_HEADER);
        if (!ours && (differing.length || !options.idempotent)) {
          throw new RefusedError(
            'SIGNAL_ID_REUSED',
            `signal id ${message.id} was already sent as ${signalLocation(this.where, ack.seq)}${differing.length ? ` with a different ${differing.join(', ')}` : ''}; ` +
              'a retry must repeat the same signal — to send a new one, leave out --id',
          );
        }
        stored = judged.value;
        delivered = ours;
      }
    }
    // Where the copy is, for finding it by id without reading the inbox: a hint, checked on use, so it
    // is published without waiting for the server's acknowledgment (a send costs one round trip still).
    if (delivered) (await this.streams()).session.nc.publish(names.seqHintSubject(message.id), String(ack.seq));
    const path = signalLocation(this.where, ack.seq);
    return { message: stored, file: String(ack.seq), inboxPath: path, outboxPath: path, delivered };
  }

  /** Nothing to check: every party's subject is in the one stream, which exists once the backend is open. */
  async prepareSend(route: SendRoute): ReturnType<SignalTransport['prepareSend']> {
    return (message, options) => this.send(message, route, options);
  }

  inbox(party: SignalParty, _options?: InboxOptions): SignalInbox {
    return new JetStreamInbox(this.streams, this.names, party, this.where);
  }

  outbox(party: SignalParty): SignalOutbox {
    const filter = this.names.outboxFilter(party.id);
    return {
      party: party.id,
      location: `${this.where} subject ${filter}`,
      list: async (): Promise<SignalReadResult> => {
        const result: SignalReadResult = { signals: [], invalid: [] };
        for (const record of await readSubjectSince(
          (await this.streams()).session,
          this.names.signalStream,
          filter,
          0,
        )) {
          const judged = judgeRecord({ where: this.where }, record, party.id, 'outbox');
          if ('signal' in judged) result.signals.push(judged.signal);
          else result.invalid.push(judged.invalid);
        }
        result.signals.sort(compareEntries);
        return result;
      },
    };
  }

  /** Streams and buckets are shared by every party and exist once the backend is open. */
  async provision(): Promise<void> {}

  /**
   * Counts from stream metadata only: messages per inbox subject and acknowledgments per ack key, both
   * `<to>.<from>`-shaped, so inbox and outbox counts come from two stream-info requests, whatever the
   * number of signals.
   */
  async census(parties: readonly SignalParty[]): Promise<Map<string, PartyCensus>> {
    const { jsm } = (await this.streams()).session;
    const names = this.names;
    const perSubject = async (stream: string, filter: string): Promise<Record<string, number>> => {
      const info = await retryTransient(() => jsm.streams.info(stream, { subjects_filter: filter }));
      return (info.state.subjects as Record<string, number> | undefined) ?? {};
    };
    const messages = await perSubject(names.signalStream, `fed.${names.federation}.inbox.>`);
    const acks = await perSubject(`KV_${names.ackBucket}`, `$KV.${names.ackBucket}.>`);
    const census = new Map<string, PartyCensus>(
      parties.map((p) => [p.id, { inbox: { total: 0, unacknowledged: 0 }, outbox: { total: 0, unacknowledged: 0 } }]),
    );
    for (const [subject, count] of Object.entries(messages)) {
      const [to, from] = subject.split('.').slice(-2) as [string, string];
      const inbox = census.get(to)?.inbox;
      const outbox = census.get(from)?.outbox;
      if (inbox) {
        inbox.total += count;
        inbox.unacknowledged += count;
      }
      if (outbox) {
        outbox.total += count;
        outbox.unacknowledged += count;
      }
    }
    for (const subject of Object.keys(acks)) {
      const [to, from] = subject.split('.').slice(-3, -1) as [string, string];
      const inbox = census.get(to)?.inbox;
      const outbox = census.get(from)?.outbox;
      if (inbox) inbox.unacknowledged = Math.max(0, inbox.unacknowledged - 1);
      if (outbox) outbox.unacknowledged = Math.max(0, outbox.unacknowledged - 1);
    }
    return census;
  }
}
