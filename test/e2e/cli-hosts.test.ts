import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { initFederation, onboardTeam, openFederation } from 'fed';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** On files every team works on one machine: fed hosts says so, and a move has nowhere to go. */
describe('fed hosts and fed team move on files', () => {
  it('fed hosts names the one host; fed team move is refused (exit 2) saying why', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const file = join(root, 'federate.config.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), serve: { hostName: 'build-1' } }));
    await onboardTeam(openFederation(root, { env: {} }), { domain: 'docs' });

    const hosts = await runFed(['--root', root, 'hosts']);
    expect(hosts, hosts.stderr).toMatchObject({ code: 0 });
    expect(hosts.stdout).toContain('one host: this federation keeps its teams in files');
    expect(hosts.stdout).toContain('(build-1)');
    expect(JSON.parse((await runFed(['--root', root, 'hosts', '--json'])).stdout)).toEqual({
      shared: false,
      host: 'build-1',
    });

    const move = await runFed(['--root', root, 'team', 'move', 'docs', '--to', 'build-2']);
    expect(move.code).toBe(2);
    expect(move.stderr).toContain('there is no other host to move one to');
  });

  it('refuses a host name a JetStream key could not hold, naming what is allowed', async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    const served = await runFed(['--root', root, 'serve', '--host-name', 'no spaces']);
    expect(served.code).toBe(2);
    expect(served.stderr).toContain('expected a host name of 1 to 63 letters, digits');
  });
});
