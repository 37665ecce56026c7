import { readFileSync } from 'node:fs';
import { getTeam } from '../../core/find-team.js';
import { InvalidInputError } from '../../core/errors.js';
import type { RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { listDirectory } from '../../infra/fs/list-directory.js';
import { localTranscript, transcriptFolder } from '../hosts/team-transcripts.js';
import { readCurrentRun } from '../launch/run-records.js';
import { readRemovedRuns } from '../../engine/registry/removed-runs.js';
import { readRunHistory } from '../../engine/runs/run-history.js';

/** `fed runs show`: one run's transcript (or prompt), where it was read from, and whose run it is. */
export interface RunTranscript {
  team: string;
  runId: string;
  /** The file in the team's workspace on this machine (fetched from the backend's copy when it lacked it). */
  path: string;
  content: Buffer;
}

/** A run id names a file in the transcript folder: `<date>-<time>-<hex>`, never a path. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;

/**
 * The transcript (or, with `prompt`, the prompt) of run `runId` of the named team or of whichever team
 * ran it: from the team's workspace here, or — a team moved here from another host — from the backend's
 * copy, written into the workspace as it is read. A run its journal lacks (its launch was cut short, or
 * runs now) is found by its files.
 */
export async function readRunTranscript(
  fed: Federation,
  runId: string,
  { team, prompt = false }: { team?: string; prompt?: boolean } = {},
): Promise<RunTranscript> {
  if (!RUN_ID.test(runId))
    throw new InvalidInputError(`"${runId}" is not a run id (letters, digits, "-" and "_"); fed runs lists them`);
  const registry = await fed.backend.registry.read();
  const teams = team ? [getTeam(registry, team)] : registry.teams;
  const what = prompt ? 'prompt' : 'transcript';
  for (const entry of teams) {
    const recorded = recordedFile(entry, runId, prompt);
    if (recorded === undefined) continue;
    if (recorded === null)
      throw new InvalidInputError(
        `run ${runId} of team ${entry.domainId} kept no prompt apart (it ran before runs did): its command holds it (fed runs --team ${entry.domainId} --json)`,
      );
    const path = await localTranscript(fed, entry, recorded);
    if (path === undefined) throw missing(fed, entry, runId, what);
    return { team: entry.domainId, runId, path, content: readFileSync(path) };
  }
  // No journal here records it: a launch cut short (a lost host) left its files, here or in the store only.
  for (const entry of teams) {
    const here = listDirectory(transcriptFolder(entry));
    const names = here.some((file) => isRunFile(file, runId, prompt))
      ? here
      : ((await fed.backend.transcripts?.names(entry.domainId)) ?? []);
    const name = names.find((file) => isRunFile(file, runId, prompt));
    const path = name === undefined ? undefined : await localTranscript(fed, entry, name);
    if (path !== undefined) return { team: entry.domainId, runId, path, content: readFileSync(path) };
  }
  const gone = readRemovedRuns(fed.root).findLast((r) => r.run.runId === runId && (!team || r.team === team));
  if (gone)
    throw new InvalidInputError(
      `run ${runId} was of team ${gone.team}, removed (fed team remove) at ${gone.removedAt}: its ${what} went with its workspace; fed runs --json keeps what the run was and cost`,
    );
  throw new InvalidInputError(
    `no run ${runId} in the run journal of ${team ? `team ${team}` : 'any team'} on this machine, and no ${what} of it kept${fed.backend.transcripts ? ` in ${fed.backend.transcripts.location}` : ''}; fed runs${team ? ` --team ${team}` : ''} lists the runs`,
  );
}

/**
 * The path the team's records give for the run's file: undefined when they know no such run, null when
 * the run kept no prompt apart.
 */
function recordedFile(entry: RegistryEntry, runId: string, prompt: boolean): string | null | undefined {
  const current = readCurrentRun(entry.location);
  const run = current?.runId === runId ? current : readRunHistory(entry.location).find((r) => r.runId === runId);
  if (!run) return undefined;
  return prompt ? run.promptPath : run.transcriptPath;
}

/** `<runId>.jsonl` or `.log` (a transcript), or `<runId>.prompt.md` (the prompt: fix prompts are not the run's). */
function isRunFile(name: string, runId: string, prompt: boolean): boolean {
  return prompt ? name === `${runId}.prompt.md` : name === `${runId}.jsonl` || name === `${runId}.log`;
}

function missing(fed: Federation, entry: RegistryEntry, runId: string, what: string): InvalidInputError {
  const elsewhere = fed.backend.transcripts
    ? `, nor kept in ${fed.backend.transcripts.location}`
    : ': on the files backend only the machine that ran it has it';
  return new InvalidInputError(
    `the ${what} of run ${runId} of team ${entry.domainId} is not in its workspace here (${transcriptFolder(entry)})${elsewhere}`,
  );
}
