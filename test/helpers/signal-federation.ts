import { readdirSync } from 'node:fs';
import { initFederation, onboardTeam, openFederation, sendSignal, signalMessageSchema, type Federation } from 'fed';
import { resolveSignalWorkspace, type SignalWorkspace } from 'fed/testing';
import { tempDir } from './temp-dir.js';

/** A real federation in a temp dir with the given teams onboarded (directory placement). */
export interface SignalFederation {
  root: string;
  meta: SignalWorkspace;
  team: (id: string) => SignalWorkspace;
}

export async function signalFederation(teams: readonly string[] = ['docs']): Promise<SignalFederation> {
  const root = tempDir('fed-signals-');
  initFederation(root, {}, { FED_TELEMETRY_ENABLED: 'false' });
  for (const domain of teams) await onboardTeam(openFederation(root), { domain }, { durable: false });
  return {
    root,
    meta: resolveSignalWorkspace(root, 'meta'),
    team: (id) => resolveSignalWorkspace(root, id, { allowArchived: true }),
  };
}

/** signalFederation's teams, each with its mission sent (a directive from meta): work for a dispatcher. */
export async function federationWithWork(teams: readonly string[]): Promise<Federation> {
  const { root } = await signalFederation(teams);
  const fed = openFederation(root, { env: { FED_TELEMETRY_ENABLED: 'false' } });
  for (const team of teams)
    await sendSignal(fed, { to: team, type: 'directive', subject: `Document ${team}`, body: 'Go.' });
  return fed;
}

/** Every entry of a directory (dot-files included), sorted; [] when it does not exist. */
export function entries(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Whether `text` is a whole, valid signal (a torn or empty write is not). */
export function isCompleteSignal(text: string): boolean {
  try {
    return signalMessageSchema.safeParse(JSON.parse(text)).success;
  } catch {
    return false;
  }
}
