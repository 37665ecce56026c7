import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { writeTree } from '../helpers/fixture-repo.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed plan (CLI)', () => {
  it('prints the plan, applies it once, and refuses a bad --teams', async () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'duo', workspaces: ['packages/*'] }),
      'packages/one/package.json': JSON.stringify({ name: 'one' }),
      'packages/one/index.ts': 'export const one = 1;\n',
      'packages/two/package.json': JSON.stringify({ name: 'two' }),
      'packages/two/index.ts': 'export const two = 2;\nexport const three = 3;\n',
    });
    expect((await runFed(['--root', root, 'init'])).code).toBe(0);
    const shown = await runFed(['--root', root, 'plan']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /^plan for duo \(2 teams, split by its packages\):\nTEAM +AREAS +FILES +LINES +MISSION\none-docs +packages\/one +2 +2 +Document packages\/one\/\ntwo-docs +packages\/two +2 +3 +Document packages\/two\/\n\napply it: fed plan --apply\n$/,
    );
    expect(JSON.parse((await runFed(['--root', root, 'team', 'list', '--json'])).stdout)).toEqual([]);

    const applied = await runFed(['--root', root, 'plan', '--apply']);
    expect(applied.stdout).toContain('onboarded, mission sent');
    const again = await runFed(['--root', root, 'plan', '--apply', '--json']);
    expect(JSON.parse(again.stdout).applied).toEqual([
      { team: 'one-docs', onboarded: false, missionSent: false },
      { team: 'two-docs', onboarded: false, missionSent: false },
    ]);

    // The hint applies the plan just shown, options included.
    const one = await runFed(['--root', root, 'plan', '--teams', '1']);
    expect(one.stdout).toMatch(/\napply it: fed plan --teams 1 --apply\n$/);

    const bad = await runFed(['--root', root, 'plan', '--teams', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected a whole number of teams > 0');
  }, 60_000);
});
