import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBubblewrap } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';

describe('findBubblewrap', () => {
  it('probes again after a failed probe, and keeps a success', () => {
    const bin = tempDir();
    const tries = join(bin, 'tries');
    // A bwrap whose first probe fails (as one that timed out on a loaded machine would), then works.
    writeFileSync(
      join(bin, 'bwrap'),
      `#!/bin/sh\necho x >> '${tries}'\n[ "$(wc -l < '${tries}')" -gt 1 ] || { echo 'no namespaces now' >&2; exit 1; }\n`,
    );
    chmodSync(join(bin, 'bwrap'), 0o755);
    const env = { PATH: bin };

    expect(findBubblewrap(env)).toEqual({ missing: expect.stringContaining('no namespaces now') });
    expect(findBubblewrap(env)).toEqual({ bwrap: join(bin, 'bwrap') });
    expect(findBubblewrap(env)).toEqual({ bwrap: join(bin, 'bwrap') });
    // The success was kept: the third call did not probe.
    expect(readFileSync(tries, 'utf8')).toBe('x\nx\n');
  });
});
