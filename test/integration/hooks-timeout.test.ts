import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHooks, validateConfig } from 'fed/testing';
import { runFed } from '../helpers/fed-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const config = validateConfig({}, 'federate.config.json').config;

describe('an importHook that never settles', () => {
  it('onInit is timed out with a message naming the hook file', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'hang.mjs'), 'export function onInit() { return new Promise(() => {}); }\n');
    await expect(
      loadHooks(root, { ...config, importHook: 'hang.mjs' }, 'launch', { timeoutMs: 2_000 }),
    ).rejects.toThrow(
      `importHook ${join(root, 'hang.mjs')}: onInit timed out: it did not settle within 2000 ms; fix the hook or remove importHook`,
    );
  });

  it('a notification hook is timed out and becomes a warning', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'hang.mjs'), 'export function onSignal() { return new Promise(() => {}); }\n');
    const hooks = await loadHooks(root, { ...config, importHook: 'hang.mjs' }, 'actors', { timeoutMs: 2_000 });
    expect(await hooks.notify('onSignal', {} as never)).toBe(
      `importHook ${join(root, 'hang.mjs')}: onSignal timed out: it did not settle within 2000 ms; fix the hook or remove importHook`,
    );
  });

  it('a module that loops forever as it is imported is timed out, naming the hook file', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'spin.mjs'), 'for (;;) {}\nexport function onInit() {}\n');
    await expect(
      loadHooks(root, { ...config, importHook: 'spin.mjs' }, 'launch', { timeoutMs: 2_000 }),
    ).rejects.toThrow(
      `importHook ${join(root, 'spin.mjs')}: loading the module timed out: it did not settle within 2000 ms; fix the hook or remove importHook`,
    );
  });

  it('a hook that loops forever (synchronously) is timed out: onInit an error, a notification a warning', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'spin.mjs'), 'export function onInit() { for (;;) {} }\n');
    await expect(
      loadHooks(root, { ...config, importHook: 'spin.mjs' }, 'launch', { timeoutMs: 2_000 }),
    ).rejects.toThrow(`importHook ${join(root, 'spin.mjs')}: onInit timed out: it did not settle within 2000 ms`);
    writeFileSync(join(root, 'spin-signal.mjs'), 'export function onSignal() { while (true) {} }\n');
    const hooks = await loadHooks(root, { ...config, importHook: 'spin-signal.mjs' }, 'actors', { timeoutMs: 2_000 });
    expect(await hooks.notify('onSignal', {} as never)).toBe(
      `importHook ${join(root, 'spin-signal.mjs')}: onSignal timed out: it did not settle within 2000 ms; fix the hook or remove importHook`,
    );
  });

  it('the CLI ends with the message and exit 1, not silently', async () => {
    const root = tempDir();
    expect((await runFed(['--root', root, 'init'])).code).toBe(0);
    writeFileSync(join(root, 'hang.mjs'), 'export function onInit() { return new Promise(() => {}); }\n');
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ importHook: 'hang.mjs' }));
    const result = await runFed(['--root', root, 'actors', 'run', '--once'], { timeoutMs: 40_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('onInit timed out: it did not settle within 10000 ms');
  });

  it('a hook module that loops forever as it is imported does not hang the CLI: exit 1, naming it', async () => {
    const root = tempDir();
    expect((await runFed(['--root', root, 'init'])).code).toBe(0);
    writeFileSync(join(root, 'spin.mjs'), 'for (;;) {}\n');
    writeFileSync(join(root, 'federate.config.json'), JSON.stringify({ importHook: 'spin.mjs' }));
    const result = await runFed(['--root', root, 'actors', 'run', '--once'], { timeoutMs: 40_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `importHook ${join(root, 'spin.mjs')}: loading the module timed out: it did not settle within 10000 ms`,
    );
  });
});
