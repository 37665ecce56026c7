import { describe, expect, it } from 'vitest';
import { ConfigValidationError } from 'fed';
import { validateConfig } from 'fed/testing';

const CHAT = { teamId: 't', channelId: '19:abc@thread.tacv2' };

function problemsOf(raw: unknown): string[] {
  try {
    validateConfig(raw, 'federate.config.json');
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems.map((p) => `${p.path}: ${p.message}`);
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('chatConfig: the agent-host invocation', () => {
  it('takes an optional command and timeout, with no defaults written into the config', () => {
    expect(validateConfig({ chatConfig: CHAT }, 'federate.config.json').config.chatConfig).toEqual(CHAT);
    const full = { ...CHAT, command: 'my-agent --prompt {prompt}', timeoutSeconds: 30 };
    expect(validateConfig({ chatConfig: full }, 'federate.config.json').config.chatConfig).toEqual(full);
  });

  it('names what is wrong', () => {
    expect(problemsOf({ chatConfig: { ...CHAT, command: '', timeoutSeconds: 0 } })).toEqual([
      'chatConfig.command: expected a non-empty string, got an empty string',
      'chatConfig.timeoutSeconds: expected a number of seconds > 0, got number 0',
    ]);
    expect(problemsOf({ chatConfig: { ...CHAT, timeoutSeconds: '60' } })).toEqual([
      'chatConfig.timeoutSeconds: expected a number of seconds, got "60"',
    ]);
  });
});
