import { chmodSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtInAgentBin, isBuiltInAgent } from '../../../src/apps/launch/builtin-agent.js';
import { writeCommandShims } from 'fed/testing';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Only the fed-agent fed depends on (packages/fed-agent) runs with no watchdog (and reads the federation
 * through the backend itself): another program of that name is any other agent.
 */
describe('the built-in agent, told from its command', () => {
  const ownBin = builtInAgentBin()!;
  const workspace = () => {
    const cwd = tempDir();
    return { cwd, launchBin: writeCommandShims(join(cwd, 'bin')) };
  };

  it('is the bare name, found through the launch-bin shim, or a path to that shim or to its executable', () => {
    const where = workspace();
    const { cwd, launchBin } = where;
    expect(isBuiltInAgent(['fed-agent'], where)).toBe(true);
    expect(isBuiltInAgent([join(launchBin, 'fed-agent')], where)).toBe(true);
    expect(isBuiltInAgent([ownBin, '--flag'], where)).toBe(true);
    expect(isBuiltInAgent([relative(cwd, ownBin)], where)).toBe(true);
    const link = join(cwd, 'linked-agent');
    symlinkSync(ownBin, link);
    expect(isBuiltInAgent([link], where)).toBe(true);
  });

  it('is not a wrapper named fed-agent, another install of it, or the bare name under a PATH of its own', () => {
    const where = workspace();
    const wrapper = join(tempDir(), 'fed-agent');
    writeFileSync(wrapper, '#!/bin/sh\nexec my-agent "$@"\n');
    chmodSync(wrapper, 0o755);
    expect(isBuiltInAgent([wrapper], where)).toBe(false);
    expect(isBuiltInAgent(['/opt/other-fed/dist/bin/agent/main.js'], where)).toBe(false);
    expect(isBuiltInAgent(['./fed-agent'], where)).toBe(false);
    expect(isBuiltInAgent(['fed-agent'], { ...where, commandEnv: { PATH: '/usr/local/bin' } })).toBe(false);
    expect(isBuiltInAgent(['claude'], where)).toBe(false);
  });
});
