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

  it('applies run at once by several processes each succeed, and send each team its mission once', async () => {
    const root = writeTree(tempDir(), {
      'package.json': JSON.stringify({ name: 'trio', workspaces: ['packages/*'] }),
      ...Object.fromEntries(
        ['a', 'b', 'c'].flatMap((p) => [
          [`packages/${p}/package.json`, JSON.stringify({ name: p })],
          [`packages/${p}/index.ts`, `export const ${p} = 1;\n`],
        ]),
      ),
    });
    expect((await runFed(['--root', root, 'init'])).code).toBe(0);
    const applies = await Promise.all([1, 2, 3, 4].map(() => runFed(['--root', root, 'plan', '--apply', '--json'])));
    for (const apply of applies) expect(apply.code, apply.stderr).toBe(0);
    const sent = applies.flatMap((apply) =>
      (JSON.parse(apply.stdout) as { applied: { team: string; missionSent: boolean }[] }).applied
        .filter((team) => team.missionSent)
        .map((team) => team.team),
    );
    expect(sent.sort()).toEqual(['a-docs', 'b-docs', 'c-docs']);
    for (const team of ['a-docs', 'b-docs', 'c-docs']) {
      const listed = await runFed(['--root', root, 'signal', 'list', '--team', team, '--json']);
      expect((JSON.parse(listed.stdout) as { signals: unknown[] }).signals, team).toHaveLength(1);
    }
  }, 60_000);
});
