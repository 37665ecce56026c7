import { basename, dirname } from 'node:path';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { listDirectory } from '../../infra/fs/list-directory.js';
import { CoalesceByKey } from '../../infra/watch/coalesce-by-key.js';
import { SharedDirectoryWatchers } from '../../infra/watch/shared-directory-watchers.js';
import { watchFolder } from '../../infra/watch/watch-folder.js';
import { keepTeamFile, keepTeamFiles, teamFiles } from './team-files.js';
import { isTranscriptName, keepTranscript, lastRunTranscripts, transcriptFolder } from './team-transcripts.js';

/**
 * How long a changed file waits before it is copied, its further changes folded in: a host killed
 * outright loses at most this much of what its agent wrote. Never pushed back, so a file written without
 * pause is still copied this often.
 */
export const KEEP_AFTER_CHANGE_MS = 250;

/**
 * The same for a run's transcript, which grows with every line its agent streams and is put whole each
 * time (the store keeps files, not appends): at most one put of it every 5 s bounds what a launch sends to
 * the server to its transcript's size every 5 s (a few hundred KB/s for a multi-MB one, none while the agent
 * is quiet), and a host killed outright loses at most the last 5 s of what its agent said.
 */
export const KEEP_TRANSCRIPT_AFTER_CHANGE_MS = 5_000;

/**
 * Keep the team's own files in the backend's store as they change while its agent runs (fed serve on a
 * federation shared across machines), so a host lost mid-launch leaves what the agent had written up to
 * the last `KEEP_AFTER_CHANGE_MS`: each folder holding one of them watched (no timer while nothing
 * changes), each changed file copied once per burst, one copy at a time. `stop` ends the watch and copies
 * what changed and was not copied yet. Nothing on a backend without a store (files: one machine).
 */
export function watchTeamFiles(
  fed: Federation,
  team: RegistryEntry,
  onError: (error: Error) => void,
): { stop(): Promise<void> } {
  if (!fed.backend.teamFiles) return { stop: async () => undefined };
  const transcripts = watchTranscripts(fed, team, onError);
  const byFolder = new Map<string, Map<string, string>>();
  for (const [name, path] of Object.entries(teamFiles(fed, team))) {
    const names = byFolder.get(dirname(path)) ?? new Map<string, string>();
    names.set(basename(path), name);
    byFolder.set(dirname(path), names);
  }
  let copying: Promise<void> = Promise.resolve();
  const copy = (name: string) => {
    copying = copying.then(() => keepTeamFile(fed, team, name).then(() => undefined, onError));
  };
  const changed = new CoalesceByKey<string>(KEEP_AFTER_CHANGE_MS, copy);
  const watchers = new SharedDirectoryWatchers();
  const stops = [...byFolder].map(([folder, names]) =>
    watchFolder(watchers, folder, {
      onChange: (entry) => {
        // Unnamed (the folder appeared or was replaced): any of its files may have changed.
        if (entry === null) for (const name of names.values()) changed.push(name, name);
        else if (names.has(entry)) changed.push(names.get(entry)!, names.get(entry)!);
      },
      onError,
    }),
  );
  return {
    async stop() {
      for (const stop of stops) stop();
      changed.clear();
      await copying;
      await keepTeamFiles(fed, team);
      await transcripts.stop();
    },
  };
}

/**
 * Keep each transcript and prompt the launch writes (`.fed/logs/runs/`) as it changes, at most every
 * `KEEP_TRANSCRIPT_AFTER_CHANGE_MS`; `stop` copies what changed since its last copy, and the files of the
 * run the launch recorded last, whose final lines may not have been heard of yet.
 */
function watchTranscripts(fed: Federation, team: RegistryEntry, onError: (error: Error) => void) {
  if (!fed.backend.transcripts) return { stop: async () => undefined };
  const unkept = new Set<string>();
  let copying: Promise<void> = Promise.resolve();
  const copy = (name: string) => {
    copying = copying.then(() => {
      unkept.delete(name);
      return keepTranscript(fed, team, name).then(() => undefined, onError);
    });
  };
  const changed = new CoalesceByKey<string>(KEEP_TRANSCRIPT_AFTER_CHANGE_MS, copy);
  const stopWatch = watchFolder(new SharedDirectoryWatchers(), transcriptFolder(team), {
    onChange: (entry) => {
      // Unnamed (the folder appeared or was replaced): any of its files may have changed.
      for (const name of entry === null ? listDirectory(transcriptFolder(team)) : [entry]) {
        if (!isTranscriptName(name)) continue;
        unkept.add(name);
        changed.push(name, name);
      }
    },
    onError,
  });
  return {
    async stop() {
      stopWatch();
      changed.clear();
      await copying;
      for (const name of new Set([...unkept, ...lastRunTranscripts(team)]))
        await keepTranscript(fed, team, name).catch(onError);
    },
  };
}
