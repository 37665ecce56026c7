import { describe, expect, it } from 'vitest';
import { agentCodeCacheName, agentScript, openCodeCache, sealCodeCache } from '../../src/agent-script.js';

describe("fed-agent's code cache as the build stores it", () => {
  const cache = agentScript('/x/agent.cjs', 'module.exports = () => 42;').createCachedData();

  it('opens to exactly what was sealed', () => {
    expect(openCodeCache(sealCodeCache(cache))?.equals(cache)).toBe(true);
  });

  it('a damaged or truncated one is no cache (V8 would crash on some damage rather than reject it)', () => {
    const sealed = sealCodeCache(cache);
    const flipped = Buffer.from(sealed);
    flipped[sealed.length - 5]! ^= 0xff;
    expect(openCodeCache(flipped)).toBeUndefined();
    expect(openCodeCache(sealed.subarray(0, sealed.length - 1))).toBeUndefined();
    expect(openCodeCache(sealed.subarray(0, 32))).toBeUndefined();
    expect(openCodeCache(Buffer.alloc(0))).toBeUndefined();
  });

  it("is named for the bundle, the Node version, the platform, the architecture and V8's tiering", () => {
    expect(agentCodeCacheName('abc', 'tuned')).toBe(
      `agent-abc-${process.version}-${process.platform}-${process.arch}-tuned.v8cache`,
    );
  });
});
