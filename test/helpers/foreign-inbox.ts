import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { initFederation, onboardTeam, openFederation, type SignalMessage } from 'fed';
import { signalFileName, toJsonText, workspacePaths } from 'fed/testing';
import { tempDir } from './temp-dir.js';

/** The `i`-th report from meta to team docs, as another tool writes it (its id from `i`). */
export function foreignMessage(i: number): SignalMessage {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1_000).toISOString(),
    from: 'meta',
    to: 'docs',
    type: 'report',
    subject: `Status ${i}`,
    body: 'x',
    protocol: 'file-signal-v1',
  };
}

/** Team docs, whose inbox holds `count` signals another tool wrote: no sent fact points to any of them. */
export async function inboxWrittenByAnotherTool(
  count: number,
): Promise<{ root: string; inbox: string; state: string }> {
  const root = tempDir();
  initFederation(root, {}, {});
  const entry = await onboardTeam(openFederation(root), { domain: 'docs' }, { durable: false });
  const { inbox, state } = workspacePaths(entry.location);
  for (let i = 0; i < count; i++)
    writeFileSync(join(inbox, signalFileName(foreignMessage(i))), toJsonText(foreignMessage(i)));
  return { root, inbox, state };
}
