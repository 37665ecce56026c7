import { durabilityNote } from './durability-note.js';
import type { JetStreamBackend } from './open-jetstream-backend.js';
import { singleNodeReplicas } from './replicas-refusal.js';
import { JetStreamSetupError } from './setup-error.js';
import { retryTransient } from './transient.js';
import { checkWorkStream } from './work-stream-check.js';
import { FedError, InvalidInputError } from '../../core/errors.js';
import type { BackendChecks, PendingFinding } from '../../ports/doctor-finding.js';

/** A KV bucket is kept in the stream of this name (NATS KV's own convention). */
const kvStream = (bucket: string): string => `KV_${bucket}`;
/** An object store, in the stream of this name (the same). */
const objStream = (bucket: string): string => `OBJ_${bucket}`;

/**
 * What `fed doctor` checks of a JetStream federation in place of files: the server answers with JetStream
 * (connecting also creates any stream or bucket that is missing, as every command does), every stream and
 * bucket keeps as many copies as `backend.replicas` asks — a lone server cannot keep more than one; on a
 * cluster, one created before the setting was raised keeps its old count, and `--fix` raises it —, the
 * unplaced teams' work queue (work-stream-check.ts), how many team files and transcript bytes are kept for moves, and, as a
 * note, what a power loss could cost with this server and replica count.
 */
export async function checkJetStream(backend: JetStreamBackend): Promise<BackendChecks> {
  let streams: Awaited<ReturnType<JetStreamBackend['streams']>>;
  try {
    streams = await backend.streams();
  } catch (error) {
    if (!(error instanceof FedError)) throw error;
    // The server answered and refused the settings (credentials, TLS, too many replicas for a single server).
    if (error instanceof JetStreamSetupError) {
      const { problem, fix } = error;
      return {
        findings: [{ check: 'backend', path: error.servers.join(','), problem, fix }],
        notes: [],
        reachable: false,
      };
    }
    return {
      findings: [
        {
          check: 'backend',
          path: backend.registry.location,
          problem: error.message,
          fix:
            // A setting fed could not use (a creds file that is none): the message names it and its fix.
            error instanceof InvalidInputError
              ? 'fix the setting the problem names; then run fed doctor again'
              : 'start the NATS server (with JetStream), or point FED_NATS_URL or backend.servers at a running one; then run fed doctor again',
        },
      ],
      notes: [],
      reachable: false,
    };
  }
  const { session } = streams;
  const { names, replicas } = session;
  const where = session.servers.join(',');
  // Streams a lone server made before backend.replicas was raised keep their one copy (it refuses to make
  // new ones with more: a JetStreamSetupError above).
  if (replicas > 1 && !session.nc.info?.cluster) {
    const { problem, fix } = singleNodeReplicas(replicas, where);
    return {
      findings: [
        {
          check: 'backend',
          path: where,
          problem: `${problem}: it keeps one copy whatever the streams' configuration says`,
          fix,
        },
      ],
      notes: optional(durabilityNote(session.serverVersion, 1)),
      reachable: true,
    };
  }
  const work = await checkWorkStream(session, where);
  const findings: PendingFinding[] = [...work.findings];
  const notes = [...work.notes];
  const stores = [
    names.signalStream,
    names.journalStream,
    names.quarantineStream,
    // The hosts' and the teams' files too: a moved team's deliverable must outlive a node as its lifecycle does.
    ...[names.ackBucket, names.registryBucket, names.lifecycleBucket, names.hostBucket, names.teamFileBucket].map(
      kvStream,
    ),
    objStream(names.transcriptBucket),
  ];
  for (const name of [...stores, ...(work.info ? [names.workStream] : [])]) {
    const info = name === names.workStream ? work.info! : await retryTransient(() => session.jsm.streams.info(name));
    if (name === kvStream(names.teamFileBucket))
      notes.push(`team files ${names.teamFileBucket}: ${info.state.messages} kept for moves to another host`);
    if (name === objStream(names.transcriptBucket))
      notes.push(
        `transcripts ${names.transcriptBucket}: ${megabytes(info.state.bytes)} MB kept, for looking back at runs of teams moved to another host`,
      );
    const kept = info.config.num_replicas;
    if (kept === replicas) continue;
    findings.push({
      check: 'backend',
      path: `${where} stream ${name}`,
      problem: `stream ${name} keeps ${kept} cop${kept === 1 ? 'y' : 'ies'} of each message, but backend.replicas asks for ${replicas}`,
      fix: `set it to ${replicas} (fed doctor --fix; the cluster needs at least ${replicas} JetStream nodes), or set backend.replicas to ${kept}`,
      repair: async () => void (await session.jsm.streams.update(name, { ...info.config, num_replicas: replicas })),
    });
  }
  notes.push(...optional(durabilityNote(session.serverVersion, replicas)));
  return { findings, notes, reachable: true };
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function optional(note: string | undefined): string[] {
  return note === undefined ? [] : [note];
}
