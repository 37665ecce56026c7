import { describe, expect, it } from 'vitest';
import { urlCredentials } from '../../src/adapters/jetstream/url-credentials.js';
import { InvalidInputError } from 'fed';

describe('credentials in FED_NATS_URL', () => {
  it('are moved out of the URLs into the client options the NATS client reads (it ignores them in a URL)', () => {
    expect(urlCredentials(['nats://127.0.0.1:4222'])).toEqual({ servers: ['nats://127.0.0.1:4222'] });
    expect(urlCredentials(['nats://fed:s3cret@a:4222', 'nats://b:4222'])).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'fed',
      pass: 's3cret',
    });
    expect(urlCredentials(['tls://fed%40acme:p%3Ass@a'])).toEqual({
      servers: ['tls://a'],
      user: 'fed@acme',
      pass: 'p:ss',
    });
    expect(urlCredentials(['nats://t0ken@a:4222', 'nats://t0ken@b:4222'])).toEqual({
      servers: ['nats://a:4222', 'nats://b:4222'],
      token: 't0ken',
    });
  });

  it('URLs with two identities are refused: one connection has one', () => {
    expect(() => urlCredentials(['nats://fed:one@a:4222', 'nats://fed:two@b:4222'])).toThrow(InvalidInputError);
  });
});
