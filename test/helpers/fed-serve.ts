import { spawn, type ChildProcess } from 'node:child_process';
import { onTestFinished } from 'vitest';
import type { ServeEvent } from 'fed/testing';
import { FED_BIN } from './fed-cli.js';
import { waitFor } from './fixture-process.js';

/** A `fed serve --json` of the built CLI, its events as they come, for the tests of the server. */
export interface ServeProcess {
  child: ChildProcess;
  events: ServeEvent[];
  stderr(): string;
  /** Until an event matches (returned), or throws after `timeoutMs` with what the server said. */
  waitForEvent<K extends ServeEvent['kind']>(
    kind: K,
    match?: (event: Extract<ServeEvent, { kind: K }>) => boolean,
    timeoutMs?: number,
  ): Promise<Extract<ServeEvent, { kind: K }>>;
  /** Resolves with the exit code once the server has exited. */
  exited: Promise<number | null>;
}

/** Start `fed serve --json` on `root`; it is SIGKILLed when the test ends, if still running. */
export function startServe(root: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}): ServeProcess {
  const { FED_ROOT: _root, FED_TEAM: _team, ...inherited } = process.env;
  const child = spawn(process.execPath, [FED_BIN, '--root', root, 'serve', '--json', ...args], {
    env: { ...inherited, NO_COLOR: '1', FED_TELEMETRY_ENABLED: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: ServeEvent[] = [];
  let partial = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as ServeEvent);
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const served: ServeProcess = {
    child,
    events,
    stderr: () => stderr,
    exited,
    async waitForEvent(kind, match = () => true, timeoutMs = 60_000) {
      type Wanted = Extract<ServeEvent, { kind: typeof kind }>;
      const found = () => events.find((e): e is Wanted => e.kind === kind && match(e as Wanted));
      await waitFor(
        () => found() !== undefined || child.exitCode !== null,
        timeoutMs,
        `fed serve to tell ${kind} (it said: ${JSON.stringify(events)}; stderr: ${stderr})`,
      );
      const event = found();
      if (!event)
        throw new Error(`fed serve exited (${child.exitCode}) before ${kind}: ${JSON.stringify(events)} ${stderr}`);
      return event;
    },
  };
  return served;
}
