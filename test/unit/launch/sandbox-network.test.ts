import { describe, expect, it } from 'vitest';
import { networkOfItsOwn, sandboxPorts } from '../../../src/apps/launch/prepare/sandbox/sandbox-network.js';

describe("the network namespace of an agent's watchdog, which its sandbox shares (issue 80)", () => {
  it('bwrap makes it and changes nothing else; the shell before it ignores the signals the watchdog takes', () => {
    expect(networkOfItsOwn('/usr/bin/bwrap')).toEqual([
      '/bin/sh',
      '-c',
      'trap "" TERM INT HUP; exec "$@"',
      'fed-network',
      '/usr/bin/bwrap',
      '--unshare-net',
      '--dev-bind',
      '/',
      '/',
      '--',
    ]);
  });

  it("listens on the proxy's port, the broker's, then those forwarded to the machine's loopback", () => {
    expect(sandboxPorts([5432, 4000])).toEqual([3128, 3129, 5432, 4000]);
  });
});
