import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { acquireServeLease, serveLeases } from '../../../src/apps/serve/serve-lease.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The serve lease names its server by the host name it serves as (serve.hostName, --host-name), which
 * need not be the machine's: fed doctor and the refusal of a second server say that name, while the
 * lease's machine stays the system's, by which its process is checked.
 */
describe('the serve lease', () => {
  it('records the host name its server serves as; a second server is refused naming it', async () => {
    const root = tempDir('fed-serve-lease-');
    const lease = await acquireServeLease(root, 'beta');
    try {
      const [held] = serveLeases(root);
      expect(held).toMatchObject({ holder: 'alive', owner: { name: 'beta', host: hostname(), pid: process.pid } });
      await expect(acquireServeLease(root, 'gamma')).rejects.toThrow(
        `fed serve already runs this federation on this machine (pid ${process.pid} on beta since `,
      );
    } finally {
      lease.release();
    }
    expect(serveLeases(root)).toEqual([]);
  });
});
