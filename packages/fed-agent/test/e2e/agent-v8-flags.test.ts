import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { tieringFlags } from 'fed/v8-tiering';

/**
 * fed's V8 tiering (src/infra/v8/tiering.ts: fed-agent's and the launcher's) names only flags this Node's V8 has:
 * V8 prints `Error: unrecognized flag` for one it lacks, in every agent log. CI runs this file on every Node line
 * fed supports (20, 22, 24 and 26: `npm run test:node`), so each line's flags are checked on its own V8.
 */
describe(`fed-agent's V8 flags on this Node (${process.version}, V8 ${process.versions.v8})`, () => {
  it('are all listed by its --v8-options, with the kind of value fed gives them', () => {
    const listed = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' }).stdout;
    const flags = tieringFlags(process.versions.v8);
    expect(flags.length, `no tiering for V8 ${process.versions.v8}: check its flags and add its line`).toBeGreaterThan(
      0,
    );
    for (const flag of flags) {
      const [, negated, name, value] = /^--(no-)?([a-z0-9-]+)(?:=(.*))?$/.exec(flag)!;
      // Each option is listed as `  --name (what it does)` then `type: <type>  default: …`.
      const entry = new RegExp(`^  --${name} \\(.*\\)\\n\\s+type: (\\w+)`, 'm').exec(listed);
      expect(entry, `${flag} is not among V8 ${process.versions.v8}'s options`).not.toBeNull();
      expect(entry![1]).toBe(value === undefined || negated ? 'bool' : 'int');
    }
  });

  it('are set without a word from V8', () => {
    const run = spawnSync(
      process.execPath,
      ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(tieringFlags(process.versions.v8).join(' '))})`],
      { encoding: 'utf8' },
    );
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
