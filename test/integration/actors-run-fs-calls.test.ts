import { describe, expect, it, vi } from 'vitest';

/**
 * Every call of a node:fs function, by name and first argument. Counting all of them (not a chosen few)
 * is what catches a check, a config load or a listing repeated somewhere new on the path.
 */
const calls: { op: string; path: string }[] = [];
let counting = false;
vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  const wrapped: Record<string, unknown> = { ...real };
  for (const [name, value] of Object.entries(real)) {
    if (typeof value !== 'function' || /^[A-Z]/.test(name)) continue;
    const fn = value as (...args: unknown[]) => unknown;
    const counted = Object.assign(
      (...args: unknown[]) => {
        if (counting) calls.push({ op: name, path: String(args[0]) });
        return fn(...args);
      },
      // realpathSync.native and the like stay reachable (and uncounted: nothing here calls them).
      fn,
    );
    wrapped[name] = counted;
  }
  return { ...wrapped, default: wrapped };
});

const { initFederation, onboardTeam, sendSignal } = await import('../../src/index.js');
const { openFederation } = await import('../../src/engine/context.js');
const { runCli } = await import('../../src/cli/program.js');
const { tempDir } = await import('../helpers/temp-dir.js');

/**
 * Calls on a path during the command, measured on this scenario: 165 (232 with the reads, writes and
 * closes of open descriptors) when the workspace check ran whole on every read and write of the file
 * adapter — 5 times, 79 calls; 83 once it runs once per team per Federation context (4 calls) and each
 * write re-checks only its folder (one realpath). The bound is half the 168 measured before the Federation
 * context: a check, a load, a listing or a lock repeated again on this path fails here.
 */
const BOUND = 84;

describe('fed actors run --once over a mission and a pause', () => {
  it(`makes at most ${BOUND} filesystem calls`, async () => {
    const root = tempDir();
    initFederation(root, {}, {});
    await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
    for (const subject of ['the mission', 'pause'])
      await sendSignal(openFederation(root), { to: 'docs', type: 'directive', subject }, { durable: false });
    const out = { stdout: '', stderr: '' };
    const io = {
      stdout: (text: string) => void (out.stdout += text),
      stderr: (text: string) => void (out.stderr += text),
      env: { FED_TELEMETRY_ENABLED: 'false' },
      cwd: root,
      isTTY: false,
    };

    calls.length = 0;
    counting = true;
    const code = await runCli(['actors', 'run', '--once', '--root', root], io);
    counting = false;

    expect({ code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect(out.stdout).toMatch(/PAUSE/);
    // Calls on a path: what a check, a load, a listing or a lock costs. Reads, writes, fsyncs and closes of
    // a descriptor already open are part of the open that made it, and not counted.
    const onPaths = calls.filter((c) => !/^\d+$/.test(c.path));
    const listed = onPaths.map((c) => `${c.op} ${c.path}`).join('\n');
    expect(onPaths.length, listed).toBeLessThanOrEqual(BOUND);
  });
});
