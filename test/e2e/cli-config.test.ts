import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('prints every URL without its credentials, as text or JSON, and so does fed doctor', async () => {
    const root = tempDir();
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://fed:s3cret@otel.example.com:4318?api_key=k3y',
      FED_TELEMETRY_ENABLED: 'false',
    };
    const fed = (...args: string[]) => runFed(['--root', root, ...args], { env });
    expect((await fed('init')).code).toBe(0);
    const text = await fed('config', 'show');
    expect(text.stdout).toContain('"endpoint": "https://fed:***@otel.example.com:4318/?api_key=***"');
    const json = await fed('config', 'show', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      telemetry: { collector: { endpoint: 'https://fed:***@otel.example.com:4318/?api_key=***' } },
    });
    const doctor = await fed('doctor', '--json');
    const malformed = await runFed(['--root', root, 'config', 'show'], {
      env: { FED_NATS_URL: 'nats://a:4222,http://fed:s3cret@b:4222' },
    });
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('FED_NATS_URL');
    for (const result of [text, json, doctor, malformed])
      expect(result.stdout + result.stderr).not.toMatch(/s3cret|k3y/);
  });

  it('takes a config saved with a byte-order mark; a file fed manages that has one is refused, naming it', async () => {
    const root = tempDir();
    const fed = (...args: string[]) => runFed(['--root', root, ...args]);
    expect((await fed('init', '--name', 'base')).code).toBe(0);
    const config = join(root, 'federate.config.json');
    writeFileSync(config, `\uFEFF${readFileSync(config, 'utf8')}`);
    const show = await fed('config', 'show');
    expect(show, show.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(show.stdout).toContain('"federationName": "base"');

    const registry = join(root, '.fed', 'team-registry.json');
    writeFileSync(registry, `\uFEFF${readFileSync(registry, 'utf8')}`);
    const list = await fed('team', 'list');
    expect(list.code).toBe(2);
    expect(list.stderr).toContain(
      `${registry} is corrupt: not valid JSON at line 1, column 1 (a byte-order mark (U+FEFF) at the start; save the file as UTF-8 without BOM)`,
    );
  });
});
