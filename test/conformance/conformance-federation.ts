import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type FederationBackend, type RegistryEntry, type SignalMessage } from 'fed';
import { SIGNAL_PROTOCOL, type SignalParty, type SignalType } from 'fed/testing';

/**
 * What a conformance suite needs from an adapter: a fresh federation with the given teams registered,
 * opened through the adapter's backend, plus the two things only the adapter knows how to do — plant
 * an entry that is not a valid signal (as a foreign or broken writer could), and show what its
 * quarantine holds. The suites (`describeSignalTransport`, `describeRegistryStore`,
 * `describeLifecycleStore`, `describeExactlyOnceApply`) take a factory and use nothing else.
 */
export interface ConformanceFederation {
  /** The selector `fixtures/conformance-worker.mjs` opens this adapter with (e.g. `file`). */
  adapter: string;
  root: string;
  backend: FederationBackend;
  meta: SignalParty;
  /** The registered teams by domain, as the registry holds them. */
  teams: Record<string, RegistryEntry>;
  /** Put something that is not a valid signal into a party's inbox; returns its handle. */
  plantInvalid(party: SignalParty, content: string): Promise<string>;
  /** The raw contents of everything the party's inbox quarantine holds. */
  quarantined(party: SignalParty): Promise<string[]>;
}

export type ConformanceFactory = (teams: readonly string[]) => Promise<ConformanceFederation>;

export const party = (entry: RegistryEntry): SignalParty => ({ id: entry.domainId, entry });

/** A valid SignalMessage (what the operations above the transport build and validate). */
export function message(
  from: string,
  to: string,
  fields: { type?: SignalType; subject?: string; body?: string; timestamp?: string; id?: string } = {},
): SignalMessage {
  return {
    id: fields.id ?? randomUUID(),
    timestamp: fields.timestamp ?? new Date().toISOString(),
    from,
    to,
    type: fields.type ?? 'report',
    subject: fields.subject ?? 'Status update',
    body: fields.body ?? '',
    protocol: SIGNAL_PROTOCOL,
  };
}

const WORKER = fileURLToPath(new URL('./fixtures/conformance-worker.mjs', import.meta.url));
const BUILT_LIBRARY = fileURLToPath(new URL('../../dist/src/index.js', import.meta.url));

export interface WorkerRun {
  /** Resolves with the worker's stdout once it exits 0; rejects with its stderr otherwise. */
  done: Promise<string>;
  kill(signal: NodeJS.Signals): void;
  /** Output so far. */
  output(): string;
}

/** Run `conformance-worker.mjs <adapter> <root> <command> ...args` on the built library, as its own process. */
export function runWorker(
  federation: ConformanceFederation,
  command: string,
  args: readonly (string | number)[] = [],
): WorkerRun {
  if (!existsSync(BUILT_LIBRARY))
    throw new Error(`the conformance worker runs the built library (${BUILT_LIBRARY}): run npm run build first`);
  const child = spawn(process.execPath, [WORKER, federation.adapter, federation.root, command, ...args.map(String)], {
    env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve(stdout) : reject(new Error(`worker ${command} ended with ${code ?? signal}: ${stderr}`)),
    );
  });
  return { done, kill: (signal) => child.kill(signal), output: () => stdout };
}

/** Wait until `predicate` holds, polling; throws after `timeoutMs`. */
export async function eventually(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Let timers and child-process events run: an adapter may answer from memory (a resolved promise), and a
 * polling loop of such reads would otherwise never see its writer processes end.
 */
export const yieldToEvents = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
