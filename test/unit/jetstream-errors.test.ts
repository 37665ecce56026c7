import { readFileSync } from 'node:fs';
import { JetStreamApiCodes, JetStreamApiError, JetStreamError } from '@nats-io/jetstream';
import { JetStreamStatusError, jserrors } from '@nats-io/jetstream/internal';
import { errors } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import {
  isCredentialsRefused,
  isJetStreamNotEnabled,
  isReplicasNotSupported,
  isTlsUnsupported,
  isStreamNameInUse,
  isStreamSubjectOverlap,
  isStreamNotFound,
  isWrongLastSequence,
  jetStreamApiCode,
  JetStreamApiCode,
  NatsErrorName,
} from '../../src/adapters/jetstream/jetstream-errors.js';
import { isTransientJetStreamError, retryTransient, TransientJetStreamError } from 'fed/testing';

// Every error below is built from the installed client's classes, the way the client builds it from a
// server reply (jsbaseclient_api.ts parseJsResponse, nats.ts request, jsclient.ts _publish).
const apiError = (err_code: number, code: number, description: string) =>
  new JetStreamApiError({ err_code, code, description });
const wrongLastSequence = apiError(10071, 400, 'wrong last sequence: 7');
const noResponders = new errors.RequestError("no responders: '$JS.API.STREAM.INFO.X'", {
  cause: new errors.NoRespondersError('$JS.API.STREAM.INFO.X'),
});

describe('JetStream error classification', () => {
  it('uses the API codes the client names with the same numbers', () => {
    expect(JetStreamApiCode.StreamNotFound).toBe(JetStreamApiCodes.StreamNotFound);
    expect(JetStreamApiCode.ConsumerNotFound).toBe(JetStreamApiCodes.ConsumerNotFound);
    expect(JetStreamApiCode.StreamWrongLastSequence).toBe(JetStreamApiCodes.StreamWrongLastSequence);
    expect(JetStreamApiCode.StreamWrongLastSequenceUnknown).toBe(JetStreamApiCodes.StreamWrongLastSequenceUnknown);
  });

  it('knows each client class by the name it sets', () => {
    expect(new errors.TimeoutError().name).toBe(NatsErrorName.Timeout);
    expect(new errors.RequestError('x').name).toBe(NatsErrorName.Request);
    expect(new errors.NoRespondersError('x').name).toBe(NatsErrorName.NoResponders);
    expect(new errors.ConnectionError('x').name).toBe(NatsErrorName.Connection);
    expect(new jserrors.JetStreamNotEnabled('x').name).toBe(NatsErrorName.JetStreamNotEnabled);
    expect(new JetStreamStatusError('x', 503).name).toBe(NatsErrorName.JetStreamStatus);
  });

  it('reads the API code of JetStreamApiError and its subclasses, and of nothing else', () => {
    expect(jetStreamApiCode(wrongLastSequence)).toBe(10071);
    expect(jetStreamApiCode(jserrors.StreamNotFoundError.fromMessage('no stream matches subject'))).toBe(10059);
    expect(
      jetStreamApiCode(
        new jserrors.ConsumerNotFoundError({ err_code: 10014, code: 404, description: 'consumer not found' }),
      ),
    ).toBe(10014);
    expect(jetStreamApiCode(new JetStreamStatusError('no responders', 503))).toBeUndefined();
    expect(jetStreamApiCode(Object.assign(new Error('wrong last sequence: 7'), { code: 10071 }))).toBeUndefined();
    expect(jetStreamApiCode(undefined)).toBeUndefined();
  });

  it('a revision check refused is "wrong last sequence", by code whatever the text says', () => {
    expect(isWrongLastSequence(wrongLastSequence)).toBe(true);
    expect(isWrongLastSequence(apiError(10164, 400, 'wrong last sequence'))).toBe(true);
    expect(isWrongLastSequence(apiError(10071, 400, 'something the server says differently one day'))).toBe(true);
    // Text alone is not an answer from the server.
    expect(isWrongLastSequence(new Error('wrong last sequence: 7'))).toBe(false);
    expect(isWrongLastSequence(new Error('key exists'))).toBe(false);
    expect(isWrongLastSequence(apiError(10037, 404, 'no message found'))).toBe(false);
  });

  it('tells "stream not found" and "stream name already in use" apart from other API errors', () => {
    expect(
      isStreamNotFound(
        new jserrors.StreamNotFoundError({ err_code: 10059, code: 404, description: 'stream not found' }),
      ),
    ).toBe(true);
    expect(isStreamNotFound(jserrors.StreamNotFoundError.fromMessage('no stream matches subject'))).toBe(true);
    expect(
      isStreamNotFound(
        new jserrors.ConsumerNotFoundError({ err_code: 10014, code: 404, description: 'consumer not found' }),
      ),
    ).toBe(false);
    expect(isStreamNameInUse(apiError(10058, 400, 'stream name already in use with a different configuration'))).toBe(
      true,
    );
    expect(isStreamNameInUse(apiError(10059, 404, 'stream not found'))).toBe(false);
    expect(isStreamNameInUse(new Error('stream name already in use'))).toBe(false);
    expect(isStreamSubjectOverlap(apiError(10065, 400, 'subjects overlap with an existing stream'))).toBe(true);
    expect(isStreamSubjectOverlap(apiError(10058, 400, 'stream name already in use'))).toBe(false);
    expect(isStreamSubjectOverlap(new Error('subjects overlap with an existing stream'))).toBe(false);
    expect(isReplicasNotSupported(apiError(10074, 500, 'replicas > 1 not supported in non-clustered mode'))).toBe(true);
    expect(isReplicasNotSupported(apiError(10065, 400, 'subjects overlap with an existing stream'))).toBe(false);
    expect(isReplicasNotSupported(new Error('replicas > 1 not supported in non-clustered mode'))).toBe(false);
  });

  it('a connection refused for its credentials or for TLS the server lacks, by the client class', () => {
    expect(isCredentialsRefused(new errors.AuthorizationError('Authorization Violation'))).toBe(true);
    expect(isCredentialsRefused(new errors.UserAuthenticationExpiredError('User Authentication Expired'))).toBe(true);
    expect(isCredentialsRefused(new errors.ConnectionError('Authorization Violation'))).toBe(false);
    expect(isTlsUnsupported(new errors.ConnectionError("server does not support 'tls'"))).toBe(true);
    expect(isTlsUnsupported(new errors.ConnectionError('connection refused'))).toBe(false);
    expect(isTlsUnsupported(new Error("server does not support 'tls'"))).toBe(false);
  });

  it('JetStreamNotEnabled is the client class, as the client throws it for no responders and for 10039', () => {
    expect(
      isJetStreamNotEnabled(new jserrors.JetStreamNotEnabled('jetstream is not enabled', { cause: noResponders })),
    ).toBe(true);
    const forAccount = apiError(
      JetStreamApiCodes.JetStreamNotEnabledForAccount,
      503,
      'jetstream not enabled for account',
    );
    expect(isJetStreamNotEnabled(new jserrors.JetStreamNotEnabled(forAccount.message, { cause: forAccount }))).toBe(
      true,
    );
    expect(isJetStreamNotEnabled(new JetStreamError('jetstream is not enabled'))).toBe(false);
  });

  describe('transient errors', () => {
    it.each([
      ['a request timed out', new errors.TimeoutError()],
      ['a request with no responders', noResponders],
      ['no responders on its own', new errors.NoRespondersError('fed.x.inbox.a.b')],
      ['a request cut by a disconnect', new errors.RequestError('connection disconnected')],
      ['a failed connection', new errors.ConnectionError('connection refused')],
      [
        'a JetStream request nobody answered',
        new jserrors.JetStreamNotEnabled('jetstream is not enabled', { cause: noResponders }),
      ],
      ['a 503 status reply', new JetStreamStatusError('no responders', 503)],
      [
        '10008 JetStream system temporarily unavailable',
        apiError(10008, 503, 'JetStream system temporarily unavailable'),
      ],
      ["fed's own", new TransientJetStreamError('the read stopped early')],
    ])('%s is retried', (_, error) => {
      expect(isTransientJetStreamError(error)).toBe(true);
    });

    it.each([
      ['wrong last sequence', wrongLastSequence],
      ['stream not found', jserrors.StreamNotFoundError.fromMessage('no stream matches subject')],
      ['another status', new JetStreamStatusError('message not found', 404)],
      ['a closed connection', new errors.ClosedConnectionError()],
      ['a draining connection', new errors.DrainingConnectionError()],
      ['a plain error saying "no responders"', new Error('no responders')],
      ['a plain error saying "temporarily unavailable"', new Error('temporarily unavailable')],
      ['not an error', 'timeout'],
    ])('%s is an answer', (_, error) => {
      expect(isTransientJetStreamError(error)).toBe(false);
    });

    it('retryTransient repeats through transient errors and stops at an answer', async () => {
      let calls = 0;
      await expect(
        retryTransient(async () => (++calls < 3 ? Promise.reject(new errors.TimeoutError()) : 'done')),
      ).resolves.toBe('done');
      expect(calls).toBe(3);
      calls = 0;
      await expect(retryTransient(async () => (++calls, Promise.reject(wrongLastSequence)))).rejects.toBe(
        wrongLastSequence,
      );
      expect(calls).toBe(1);
    });

    it('retryTransient still without an answer at its deadline says the server is gone (BACKEND_UNAVAILABLE), the last error its cause', async () => {
      const timeout = new errors.TimeoutError();
      const refused = await retryTransient(() => Promise.reject(timeout), 120).catch((error: unknown) => error);
      expect(refused).toMatchObject({
        code: 'BACKEND_UNAVAILABLE',
        message: expect.stringMatching(
          /^the NATS server has not answered for 0 s \(.*\): it is down or cannot be reached/,
        ),
        cause: timeout,
      });
      // A refusal only the caller retries comes back as it was.
      const conflict = new Error('conflict');
      await expect(
        retryTransient(
          () => Promise.reject(conflict),
          120,
          () => true,
        ),
      ).rejects.toBe(conflict);
    });
  });

  it('the classification never loads the client: its imports of @nats-io are types only', () => {
    for (const file of ['jetstream-errors.ts', 'transient.ts']) {
      const source = readFileSync(new URL(`../../src/adapters/jetstream/${file}`, import.meta.url), 'utf8');
      expect(source.match(/^import (?!type ).*'@nats-io\/.*$/gm) ?? [], file).toEqual([]);
    }
  });
});
