/**
 * A copy of each run's transcript and prompt (`.fed/logs/runs/<runId>.jsonl|.log`, `<runId>.prompt.md`)
 * kept on a backend shared across machines (JetStream), so a team moved off the host that ran a launch can
 * still look back at it. Beside the team file store rather than in it: transcripts run to megabytes and
 * are only read on demand, one at a time, never all of them when a team arrives. Absent on files (one
 * machine: the workspace is the only copy needed).
 */
export interface TranscriptStore {
  /** Where the copies are, for messages. */
  readonly location: string;
  /**
   * Keep `content` as the team's transcript file `name` (replacing the copy before). All or nothing: a
   * copy refused midway (the store is full) leaves the one before as it was, and the error says so.
   */
  put(team: string, name: string, content: Uint8Array): Promise<void>;
  /** The kept copy of the team's file `name`, whole and checked against its digest; undefined when none. */
  get(team: string, name: string): Promise<Uint8Array | undefined>;
  /** sha256 (hex) of the kept copy of `name`, without reading it; undefined when none. */
  digest(team: string, name: string): Promise<string | undefined>;
  /** The names of every file kept for the team. */
  names(team: string): Promise<string[]>;
}
