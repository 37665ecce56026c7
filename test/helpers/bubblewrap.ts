import { findBubblewrap } from 'fed/testing';
import { skipWithout } from './loud-skip.js';

/**
 * Why the sandbox tests cannot run here — bwrap is not on PATH, or it cannot make the agent's sandbox on
 * this machine (findBubblewrap probes it as the launcher would) — or undefined when they can.
 */
export const bubblewrapMissing: string | undefined = (() => {
  const found = findBubblewrap(process.env);
  return 'missing' in found ? found.missing : undefined;
})();

/** `it.skipIf(skipWithoutBubblewrap(SUITE))`: skipped loudly without a working bwrap; under CI never (loud-skip.ts). */
export function skipWithoutBubblewrap(suite: string): boolean {
  return skipWithout(suite, bubblewrapMissing);
}
