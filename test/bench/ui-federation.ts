/**
 * The dashboard benchmark's federation: `teams` teams and `signals` signals, quickly. Teams are onboarded
 * by fed (`onboardTeam`, without fsyncs); signals are written in file-signal-v1's documented layout (the
 * inbox copy, the sender's outbox copy under the same name, the `.ack` of every other one, the `sent`
 * delivery fact), each checked against fed's own schemas — sending 100 000 would take minutes and
 * dominate the run. Meta's directives and reports go to the teams, the teams' reports and a few questions
 * to meta, and a few teams are paused: a fleet with a board, a needs-you queue and signal threads to show.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initFederation, onboardTeam, openFederation, setTeamStatus, signalAckSchema, signalMessageSchema } from 'fed';
import {
  ackFileName,
  deliveryDirectory,
  META,
  sentFactOf,
  sentFactSchema,
  signalFileName,
  type SignalType,
  toJsonText,
  workspacePaths,
} from 'fed/testing';

const ENV = { ...process.env, FED_TELEMETRY_ENABLED: 'false' };

export async function uiFederation(teams: number, signals: number): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'fed-bench-ui-'));
  initFederation(root, {}, ENV);
  const fed = openFederation(root, { env: ENV });
  const boxes = new Map([[META, workspacePaths(root)]]);
  for (let t = 0; t < teams; t++) {
    const entry = await onboardTeam(fed, { domain: `team-${String(t).padStart(4, '0')}` }, { durable: false });
    boxes.set(entry.domainId, workspacePaths(entry.location));
  }
  const ids = [...boxes.keys()].filter((id) => id !== META);
  const facts = deliveryDirectory(root);
  for (const dir of [facts, ...[...boxes.values()].flatMap((b) => [b.inbox, b.outbox])])
    mkdirSync(dir, { recursive: true });
  const ack = toJsonText(signalAckSchema.parse({ acknowledged: true, acknowledged_at: '2026-01-02T00:00:00.000Z' }));
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < signals; i++) {
    const team = ids[i % ids.length]!;
    const toMeta = i % 4 === 3;
    const type: SignalType = toMeta ? (i % 400 === 3 ? 'question' : 'report') : i % 8 === 0 ? 'directive' : 'report';
    const message = signalMessageSchema.parse({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      timestamp: new Date(start + i * 1_000).toISOString(),
      from: toMeta ? team : META,
      to: toMeta ? META : team,
      type,
      subject: `${type} ${i}`,
      body: `Signal ${i} of the benchmark.\n`.repeat(4),
      protocol: 'file-signal-v1',
    });
    const sent = sentFactSchema.parse(sentFactOf(message));
    const name = signalFileName(message);
    const text = toJsonText(message);
    writeFileSync(join(facts, `${message.id}.sent.json`), toJsonText(sent));
    writeFileSync(join(boxes.get(message.to)!.inbox, name), text);
    writeFileSync(join(boxes.get(message.from)!.outbox, name), text);
    if (i % 2 === 0) writeFileSync(join(boxes.get(message.to)!.inbox, ackFileName(name)), ack);
  }
  for (let t = 0; t < ids.length; t += 100) await setTeamStatus(fed, ids[t]!, { type: 'PAUSE' });
  return root;
}
