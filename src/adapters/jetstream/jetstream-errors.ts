import type { JetStreamApiError } from '@nats-io/jetstream';
import type { JetStreamStatusError } from '@nats-io/jetstream/internal';

/**
 * The NATS client's errors told apart by class and by the JetStream API code the server replied with,
 * never by message text. This module must not load the client: the stores that use it are imported by
 * every fed command, and the client is loaded only when a JetStream backend connects (connect-jetstream.ts).
 * So a class is recognised by the `name` each of the client's error classes sets, and an API error by its
 * `apiError()` and numeric `code`. test/unit/jetstream-errors.test.ts builds every case from the
 * installed client's own classes, so a rename there fails a test, not a retry in production.
 */

/**
 * The server's JetStream API error codes fed branches on (nats-server errors.json). The client's
 * `JetStreamApiCodes` names only some of them; the test checks that those agree.
 */
export const JetStreamApiCode = {
  /** JSClusterNotAvailErr "JetStream system temporarily unavailable" (status 503). Not in the client's list. */
  ClusterNotAvailable: 10008,
  /** JSConsumerNotFoundErr "consumer not found"; the client throws it as ConsumerNotFoundError. */
  ConsumerNotFound: 10014,
  /** JSStreamNameExistErr "stream name already in use with a different configuration". Not in the client's list. */
  StreamNameInUse: 10058,
  /** JSStreamNotFoundErr "stream not found"; the client throws it as StreamNotFoundError. */
  StreamNotFound: 10059,
  /** JSStreamSubjectOverlapErr "subjects overlap with an existing stream". Not in the client's list. */
  StreamSubjectOverlap: 10065,
  /** JSStreamWrongLastSequenceErrF "wrong last sequence: {seq}". */
  StreamWrongLastSequence: 10071,
  /** JSStreamWrongLastSequenceConstantErr "wrong last sequence", the same refusal without the sequence. */
  StreamWrongLastSequenceUnknown: 10164,
  /** JSStreamStoreFailedF "{err}": a message refused by the stream's limits, e.g. "maximum messages per subject exceeded". Not in the client's list. */
  StreamStoreFailed: 10077,
  /** JSStreamReplicasNotSupportedErr "replicas > 1 not supported in non-clustered mode". Not in the client's list. */
  StreamReplicasNotSupported: 10074,
} as const;

/**
 * The `name` of each client error class fed branches on. Not always the class name: NoRespondersError
 * is named "NoResponders".
 */
export const NatsErrorName = {
  /** nats-core TimeoutError: no reply within the request's timeout. */
  Timeout: 'TimeoutError',
  /** nats-core RequestError: the request failed before a reply ("connection disconnected", or a NoRespondersError as its cause). */
  Request: 'RequestError',
  /** nats-core NoRespondersError: nobody subscribes to the subject (the server's 503 status on a request). */
  NoResponders: 'NoResponders',
  /** nats-core ConnectionError: the connection to the server failed. */
  Connection: 'ConnectionError',
  /** nats-core AuthorizationError: the server refused the connection's credentials ("Authorization Violation"). */
  Authorization: 'AuthorizationError',
  /** nats-core UserAuthenticationExpiredError: the server refused the credentials as expired. */
  AuthenticationExpired: 'UserAuthenticationExpiredError',
  /** jetstream JetStreamNotEnabled: a JetStream API request or publish had no responders, or the account has no JetStream (10039). */
  JetStreamNotEnabled: 'JetStreamNotEnabled',
  /** jetstream JetStreamStatusError: a status reply (direct get, pull consumer), its status as `code`. */
  JetStreamStatus: 'JetStreamStatusError',
} as const;

/** Whether `error` is one of the client's error classes, by the name it sets (see NatsErrorName). */
export function isNatsError(error: unknown, name: (typeof NatsErrorName)[keyof typeof NatsErrorName]): boolean {
  return error instanceof Error && error.name === name;
}

/**
 * The server's API error code when `error` is a JetStreamApiError (or its subclasses StreamNotFoundError,
 * ConsumerNotFoundError): the `err_code` of the reply, which the client exposes as `code`.
 */
export function jetStreamApiCode(error: unknown): number | undefined {
  if (!(error instanceof Error) || typeof (error as Partial<JetStreamApiError>).apiError !== 'function')
    return undefined;
  const { code } = error as JetStreamApiError;
  return typeof code === 'number' ? code : undefined;
}

/** The status of a JetStreamStatusError (e.g. 503 "no responders"), or undefined for any other error. */
export function jetStreamStatus(error: unknown): number | undefined {
  return isNatsError(error, NatsErrorName.JetStreamStatus) ? (error as JetStreamStatusError).code : undefined;
}

/**
 * A publish refused because the subject's last sequence is not the one expected: the revision check of a
 * KV compare-and-swap (update, delete with previousSeq). A KV create of a key that holds a value rejects
 * with this very error too: the client has no separate "key exists" error.
 */
export function isWrongLastSequence(error: unknown): boolean {
  const code = jetStreamApiCode(error);
  return code === JetStreamApiCode.StreamWrongLastSequence || code === JetStreamApiCode.StreamWrongLastSequenceUnknown;
}

/** A publish refused because its subject holds a message already (a stream of one message per subject, discard new). */
export function isSubjectFull(error: unknown): boolean {
  return (
    jetStreamApiCode(error) === JetStreamApiCode.StreamStoreFailed && /per subject/i.test((error as Error).message)
  );
}

/** A stream lookup (info, get, consumer) answered "stream not found". */
export function isStreamNotFound(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCode.StreamNotFound;
}

/** A consumer lookup answered "consumer not found". */
export function isConsumerNotFound(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCode.ConsumerNotFound;
}

/** A stream add refused because a stream of that name exists with another configuration. */
export function isStreamNameInUse(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCode.StreamNameInUse;
}

/**
 * A stream add refused because another stream holds its subjects. The server also answers this to one of
 * two identical adds made at the same moment (nats-server 2.9: the second sees the first's subjects before
 * its name), so it means "someone else's stream" only once the name is still not found a moment later.
 */
export function isStreamSubjectOverlap(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCode.StreamSubjectOverlap;
}

/** A stream or bucket add refused because it asks for more than one copy of a server that is not in a cluster. */
export function isReplicasNotSupported(error: unknown): boolean {
  return jetStreamApiCode(error) === JetStreamApiCode.StreamReplicasNotSupported;
}

/** The server refused the connection's credentials: wrong, missing or expired. */
export function isCredentialsRefused(error: unknown): boolean {
  return isNatsError(error, NatsErrorName.Authorization) || isNatsError(error, NatsErrorName.AuthenticationExpired);
}

/**
 * The client was configured for TLS and the server offers none. The client says so with a ConnectionError
 * of its own (nats-core options.ts checkOptions), no server reply: its text is all there is to tell it by.
 */
export function isTlsUnsupported(error: unknown): boolean {
  return isNatsError(error, NatsErrorName.Connection) && /does not support 'tls'/.test((error as Error).message);
}

/** The client's JetStreamNotEnabled: the server (or the account) does not serve the JetStream API. */
export function isJetStreamNotEnabled(error: unknown): boolean {
  return isNatsError(error, NatsErrorName.JetStreamNotEnabled);
}
