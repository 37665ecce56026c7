import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed, type FedResult } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A file dropped into an inbox by hand that reuses the id of a signal fed delivered there must not be
 * swallowed as a duplicate, nor swallow the real one: it is listed as invalid with the reason, and the
 * team actor quarantines it and applies the delivered signal.
 */
describe('a hand-dropped signal reusing a delivered id', () => {
  it('is named by fed signal list and fed doctor, and quarantined by fed actors run; the delivered one is applied', async () => {
    const root = tempDir();
    const fed = (...args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 30_000 });
    const ok = async (...args: string[]): Promise<FedResult> => {
      const result = await fed(...args);
      expect(result, result.stderr).toMatchObject({ code: 0 });
      return result;
    };
    await ok('init');
    await ok('team', 'onboard', 'docs');
    const sent = JSON.parse(
      (await ok('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'the real work', '--json'))
        .stdout,
    ) as { id: string; inbox: string };
    // Earlier than the real one, so it comes first in inbox order: the dangerous case.
    const real = JSON.parse(readFileSync(sent.inbox, 'utf8')) as Record<string, unknown>;
    const inbox = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'inbox');
    const intruder = join(inbox, '2026-01-01T000000Z-directive-other-work.json');
    writeFileSync(intruder, JSON.stringify({ ...real, subject: 'other work', timestamp: '2026-01-01T00:00:00.000Z' }));

    const list = await ok('signal', 'list', '--team', 'docs', '--json');
    const listed = JSON.parse(list.stdout) as {
      signals: { message: { subject: string } }[];
      invalid: { file: string; reason: string }[];
    };
    expect(listed.signals.map((s) => s.message.subject)).toEqual(['the real work']);
    expect(listed.invalid).toEqual([
      expect.objectContaining({
        file: '2026-01-01T000000Z-directive-other-work.json',
        reason: expect.stringContaining(`reuses the id ${sent.id}`),
      }),
    ]);
    const plain = await ok('signal', 'list', '--team', 'docs');
    expect(plain.stderr).toMatch(/2026-01-01T000000Z-directive-other-work\.json.*reuses the id/);

    const doctor = await fed('doctor', '--json');
    expect(doctor.code, doctor.stderr).toBe(1);
    expect((JSON.parse(doctor.stdout) as { findings: unknown[] }).findings).toEqual([
      expect.objectContaining({
        check: 'signal-id',
        team: 'docs',
        path: intruder,
        problem: expect.stringContaining(`reuses the id ${sent.id}`),
        fixable: true,
      }),
    ]);

    const actors = await ok('actors', 'run', '--once');
    expect(actors.stdout).toMatch(/docs: quarantined 2026-01-01T000000Z-directive-other-work\.json: reuses the id/);
    expect(actors.stdout).toMatch(/docs: MISSION_ASSIGNED/);
    expect(existsSync(intruder)).toBe(false);
    const quarantine = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'quarantine');
    expect(readdirSync(quarantine)).toContain('2026-01-01T000000Z-directive-other-work.json');
    expect(JSON.parse(readFileSync(`${sent.inbox}.ack`, 'utf8'))).toMatchObject({ acknowledged: true });
    expect((await fed('doctor')).code).toBe(0);
    const team = JSON.parse((await ok('team', 'show', 'docs', '--json')).stdout) as unknown;
    expect(JSON.stringify(team)).toContain('the real work');
    expect(JSON.stringify(team)).not.toContain('other work');
  });

  it('fed doctor --fix quarantines it with the reason; the delivered signal stays', async () => {
    const root = tempDir();
    const fed = (...args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 30_000 });
    expect((await fed('init')).code).toBe(0);
    expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
    const sent = JSON.parse(
      (await fed('signal', 'send', '--to', 'docs', '--type', 'directive', '--subject', 'the real work', '--json'))
        .stdout,
    ) as { id: string; inbox: string };
    const real = JSON.parse(readFileSync(sent.inbox, 'utf8')) as Record<string, unknown>;
    const intruder = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'inbox', 'by-hand.json');
    writeFileSync(intruder, JSON.stringify({ ...real, body: 'something else' }));
    const fixed = await fed('doctor', '--fix');
    expect(fixed, fixed.stderr).toMatchObject({ code: 0 });
    expect(existsSync(intruder)).toBe(false);
    expect(existsSync(sent.inbox)).toBe(true);
    const quarantine = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'quarantine');
    expect(JSON.parse(readFileSync(join(quarantine, 'by-hand.json.reason.json'), 'utf8'))).toMatchObject({
      reason: expect.stringContaining(`reuses the id ${sent.id}`),
    });
  });
  it("two files of another tool with one id and different content: the later is named and quarantined, never dropped as the first's duplicate", async () => {
    const root = tempDir();
    const fed = (...args: string[]) => runFed(['--root', root, ...args], { timeoutMs: 30_000 });
    expect((await fed('init')).code).toBe(0);
    expect((await fed('team', 'onboard', 'docs')).code).toBe(0);
    const inbox = join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'inbox');
    const signal = (subject: string, at: string) => ({
      id: '5a1b2c3d-0000-4000-8000-000000000001',
      timestamp: at,
      from: 'meta',
      to: 'docs',
      type: 'directive',
      subject,
      body: '',
      protocol: 'file-signal-v1',
    });
    writeFileSync(
      join(inbox, '2026-01-01T000000Z-directive-first.json'),
      JSON.stringify(signal('first', '2026-01-01T00:00:00.000Z')),
    );
    const later = join(inbox, '2026-01-02T000000Z-directive-second.json');
    writeFileSync(later, JSON.stringify(signal('second', '2026-01-02T00:00:00.000Z')));

    const listed = JSON.parse((await fed('signal', 'list', '--team', 'docs', '--json')).stdout) as {
      signals: { message: { subject: string } }[];
      invalid: { file: string; reason: string }[];
    };
    expect(listed.signals.map((s) => s.message.subject)).toEqual(['first']);
    expect(listed.invalid).toEqual([
      expect.objectContaining({
        file: '2026-01-02T000000Z-directive-second.json',
        reason: expect.stringContaining('of 2026-01-01T000000Z-directive-first.json, another signal in this inbox'),
      }),
    ]);
    const actors = await fed('actors', 'run', '--once');
    expect(actors.stdout).toMatch(/docs: quarantined 2026-01-02T000000Z-directive-second\.json/);
    expect(existsSync(later)).toBe(false);
    expect(readdirSync(join(root, '.fed', 'teams', 'docs', '.fed', 'signals', 'quarantine'))).toContain(
      '2026-01-02T000000Z-directive-second.json',
    );
  });
});
