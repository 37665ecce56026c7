import { describe, expect, it } from 'vitest';
import { ConfigValidationError } from 'fed';
import { validateConfig } from 'fed/testing';
import {
  MAX_TIMER_MS,
  parseDuration,
  timerDurationSchema,
  timerProblem,
  timerSecondsSchema,
} from '../../../src/core/schema/duration.js';

/** Node's timers hold at most 2^31-1 ms; a longer delay fires after 1 ms (TimeoutOverflowWarning). */
const NODE_TIMER_LIMIT_MS = 2 ** 31 - 1;

describe('MAX_TIMER_MS: the longest fed waits on one timer', () => {
  it('is 24 whole days, under what Node’s timers hold', () => {
    expect(MAX_TIMER_MS).toBe(24 * 86_400_000);
    expect(MAX_TIMER_MS).toBeLessThanOrEqual(NODE_TIMER_LIMIT_MS);
  });
});

describe('timerProblem: a delay fed cannot wait, said with how to fix it', () => {
  it('accepts what fits, the bounds included', () => {
    expect(timerProblem(MAX_TIMER_MS, '24d', { what: 'interval' })).toBeUndefined();
    expect(timerProblem(1, '1ms', { what: 'timeout' })).toBeUndefined();
    expect(timerProblem(100, '100ms', { what: 'interval', min: { ms: 100, why: 'a busy loop' } })).toBeUndefined();
  });

  it('refuses longer than 24 days, or than a tighter maximum, with why', () => {
    expect(timerProblem(MAX_TIMER_MS + 1, '30d', { what: 'interval' })).toBe(
      '30d is longer than fed can wait (at most 24 days); give a shorter interval',
    );
    expect(timerProblem(3_000_000_000, '3000000 seconds', { what: 'interval' }, { name: 'seconds', ms: 1000 })).toBe(
      '3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter interval',
    );
    expect(timerProblem(9 * 86_400_000, '9d', { what: 'heartbeat', max: { ms: 8 * 86_400_000, why: 'thrice' } })).toBe(
      '9d is longer than fed can wait (at most 8 days: thrice); give a shorter heartbeat',
    );
  });

  it('refuses shorter than the minimum, with why', () => {
    const bounds = { what: 'interval', min: { ms: 100, why: 'fed would repeat the cycle almost without pause' } };
    expect(timerProblem(0.1, '0.0001 seconds', bounds, { name: 'seconds', ms: 1000 })).toBe(
      '0.0001 seconds is too short (at least 0.1 seconds: fed would repeat the cycle almost without pause); give a longer interval',
    );
    expect(timerProblem(1, '1ms', bounds)).toBe(
      '1ms is too short (at least 100 ms: fed would repeat the cycle almost without pause); give a longer interval',
    );
  });
});

describe('timerDurationSchema and timerSecondsSchema: the config fields that are timers', () => {
  const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
    result.success ? [] : result.error!.issues.map((issue) => issue.message);

  it('keep the duration checks and add the bounds', () => {
    const schema = timerDurationSchema({ what: 'wait', min: { ms: 1000, why: 'too eager' } });
    expect(schema.parse('30s')).toBe('30s');
    expect(schema.parse('24d')).toBe('24d');
    expect(messages(schema.safeParse('30'))).toEqual([
      'expected a duration > 0 with a unit such as 30m, 2h, 7d, got "30"',
    ]);
    expect(messages(schema.safeParse('25d'))).toEqual([
      '25d is longer than fed can wait (at most 24 days); give a shorter wait',
    ]);
    expect(messages(schema.safeParse('10ms'))).toEqual([
      '10ms is too short (at least 1 second: too eager); give a longer wait',
    ]);
    expect(parseDuration('25d')).toBe(25 * 86_400_000);
  });

  it('in seconds: > 0 and at most 2073600', () => {
    const schema = timerSecondsSchema({ what: 'timeout' });
    expect(schema.parse(2_073_600)).toBe(2_073_600);
    expect(schema.parse(0.5)).toBe(0.5);
    expect(messages(schema.safeParse(0))).toEqual(['expected a number of seconds > 0, got number 0']);
    expect(messages(schema.safeParse(3_000_000))).toEqual([
      '3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter timeout',
    ]);
  });
});

describe('federate.config.json: every duration that ends up as a timer is bounded, the field named', () => {
  function problemsOf(raw: unknown): string[] {
    try {
      validateConfig(raw, 'federate.config.json');
    } catch (error) {
      if (error instanceof ConfigValidationError) return error.problems.map((p) => `${p.path}: ${p.message}`);
      throw error;
    }
    return [];
  }
  const CHAT = { teamId: 't', channelId: '19:abc@thread.tacv2' };

  it('accepts the defaults, the documented examples and the bounds themselves', () => {
    expect(problemsOf({ serve: { heartbeat: '5s', hostLostAfter: '15s', workAckWait: '30s' } })).toEqual([]);
    expect(problemsOf({ serve: { heartbeat: '100ms', hostLostAfter: '24d', workAckWait: '1s' } })).toEqual([]);
    expect(problemsOf({ serve: { heartbeat: '8d', workAckWait: '24d' } })).toEqual([]);
    expect(problemsOf({ serve: { heartbeat: '500ms', hostLostAfter: '2s', workAckWait: '2s' } })).toEqual([]);
    expect(
      problemsOf({ chatConfig: { ...CHAT, timeoutSeconds: 2_073_600 }, notify: { command: 'x', timeoutSeconds: 0.5 } }),
    ).toEqual([]);
  });

  it('refuses what Node’s timers cannot hold, and what would be a busy loop', () => {
    expect(
      problemsOf({
        serve: { heartbeat: '9d', hostLostAfter: '30d', workAckWait: '1ms' },
        chatConfig: { ...CHAT, timeoutSeconds: 3_000_000 },
        notify: { command: 'x', timeoutSeconds: 1e10 },
      }),
    ).toEqual([
      'chatConfig.timeoutSeconds: 3000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter timeout',
      'notify.timeoutSeconds: 10000000000 seconds is longer than fed can wait (at most 24 days, 2073600 seconds); give a shorter timeout',
      'serve.heartbeat: 9d is longer than fed can wait (at most 8 days: a host is lost after 3 heartbeats, and fed waits 24 days at most); give a shorter heartbeat',
      'serve.hostLostAfter: 30d is longer than fed can wait (at most 24 days); give a shorter duration',
      'serve.workAckWait: 1ms is too short (at least 1 second: the server says it still works on the work every third of it, so a shorter wait would give the work to another host while its agent runs); give a longer wait',
    ]);
    expect(problemsOf({ serve: { heartbeat: '1ms', workAckWait: '25d' } })).toEqual([
      'serve.heartbeat: 1ms is too short (at least 100 ms: the server would rewrite its host record almost without pause); give a longer heartbeat',
      'serve.workAckWait: 25d is longer than fed can wait (at most 24 days); give a shorter wait',
    ]);
  });
});
