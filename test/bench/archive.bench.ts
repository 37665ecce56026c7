/**
 * Bounded inboxes (issue 16 item 8): with 100 000 archived signals and 100 live ones, `fed signal list`,
 * `fed monitor` and `fed actors run --once` cost within 1.5× of the same federation with only the 100
 * live ones — the archive folders (and the delivery facts of the archived signals) are never read by
 * them. Wall time of the whole command, as a user waits for it, measured in interleaved rounds.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { initFederation, onboardTeam, openFederation } from 'fed';
import {
  archiveDirectoryOf,
  deliveryDirectory,
  type SentFact,
  signalDigest,
  signalFileName,
  workspacePaths,
} from 'fed/testing';
import type { SignalMessage } from 'fed';
import { FED_BIN } from '../helpers/fed-cli.js';
import { reportInterleavedRatios } from './harness.js';

const LIVE = 100;
const ARCHIVED = 100_000;
const ROUNDS = 7;
const ACK = '{"acknowledged":true,"acknowledged_at":"2026-01-01T00:00:00.000Z"}';

/** Signal `i` from meta to docs: its file name and content. */
function signal(i: number, day: string): { name: string; text: string; message: SignalMessage } {
  const message: SignalMessage = {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    timestamp: `${day}T00:00:00.000Z`,
    from: 'meta',
    to: 'docs',
    type: 'report',
    subject: `signal ${i}`,
    body: 'x'.repeat(200),
    protocol: 'file-signal-v1',
  };
  return { name: signalFileName(message), text: JSON.stringify(message), message };
}

/** A federation with `docs`, 100 live signals to it (half acknowledged) and `archived` archived ones, as fed leaves them. */
async function federation(archived: number): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-archive-'));
  initFederation(root, {}, {});
  const docs = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const inbox = workspacePaths(docs.location).inbox;
  const outbox = workspacePaths(root).outbox;
  const facts = deliveryDirectory(root);
  for (const dir of [inbox, outbox, archiveDirectoryOf(inbox), archiveDirectoryOf(outbox), facts])
    mkdirSync(dir, { recursive: true });
  // Files are written directly (not sent): the setup would otherwise dominate the run.
  const write = (i: number, day: string, live: boolean) => {
    const { name, text, message } = signal(i, day);
    const [inDir, outDir] = live ? [inbox, outbox] : [archiveDirectoryOf(inbox), archiveDirectoryOf(outbox)];
    writeFileSync(join(inDir, name), text);
    writeFileSync(join(outDir, name), text);
    if (!live || i % 2 === 0) writeFileSync(join(inDir, `${name}.ack`), ACK);
    const sent: SentFact = {
      id: message.id,
      timestamp: message.timestamp,
      from: 'meta',
      to: 'docs',
      type: 'report',
      subject: message.subject,
      digest: signalDigest(message),
    };
    writeFileSync(join(facts, `${message.id}.sent.json`), JSON.stringify(sent));
  };
  for (let i = 0; i < archived; i++) write(LIVE + i, '2025-01-01', false);
  for (let i = 0; i < LIVE; i++) write(i, '2026-01-01', true);
  return root;
}

function timed(root: string, args: readonly string[]): () => number {
  return () => {
    const started = performance.now();
    const run = spawnSync(process.execPath, [FED_BIN, '--root', root, ...args], {
      env: { ...process.env, FED_TELEMETRY_ENABLED: 'false' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const elapsed = performance.now() - started;
    if (run.status !== 0) throw new Error(`fed ${args.join(' ')} exited ${run.status}: ${run.stderr.toString()}`);
    return elapsed;
  };
}

export default async function archiveBench(): Promise<void> {
  const liveOnly = await federation(0);
  const withArchive = await federation(ARCHIVED);
  try {
    const commands: [string, string[]][] = [
      ['fed signal list', ['signal', 'list', '--team', 'docs']],
      ['fed monitor', ['monitor']],
      ['fed actors run --once', ['actors', 'run', '--once']],
    ];
    for (const [name, args] of commands) {
      // The first actors run applies the live signals; every later one finds nothing pending in both.
      timed(liveOnly, args)();
      timed(withArchive, args)();
      await reportInterleavedRatios(
        { name: `${name}, ${LIVE} live`, run: timed(liveOnly, args) },
        [{ name: `${name}, ${LIVE} live + ${ARCHIVED} archived`, run: timed(withArchive, args), max: 1.5 }],
        ROUNDS,
      );
    }
  } finally {
    rmSync(liveOnly, { recursive: true, force: true });
    rmSync(withArchive, { recursive: true, force: true });
  }
}
