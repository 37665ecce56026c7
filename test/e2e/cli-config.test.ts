import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

describe('fed config show', () => {
  it('checks the files the config names: deliverableSchema, importHook and the playbook skill (exit 2, each named)', async () => {
    const root = tempDir();
    const fed = (...args: string[]) => runFed(['--root', root, ...args]);
    expect((await fed('init')).code).toBe(0);
    expect(await fed('config', 'show')).toMatchObject({ code: 0, stderr: '' });

    writeFileSync(
      join(root, 'federate.config.json'),
      JSON.stringify({ deliverableSchema: 'schemas/doc.json', importHook: 'hooks.ts' }),
    );
    rmSync(join(root, '.fed', 'skills', 'domain-playbook.md'));
    const show = await fed('config', 'show');
    expect(show.code).toBe(2);
    expect(show.stdout).toContain('"deliverableSchema": "schemas/doc.json"');
    const lines = show.stderr.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /federate\.config\.json: deliverableSchema: .*schemas\/doc\.json is not a file; fix the path or remove deliverableSchema$/,
    );
    expect(lines[1]).toMatch(/federate\.config\.json: importHook: .*hooks\.ts is not a file/);
    expect(lines[2]).toMatch(
      /federate\.config\.json: playbookSkill: the playbook skill .*domain-playbook\.md does not exist, so launch prompts have no playbook/,
    );
  });
});
