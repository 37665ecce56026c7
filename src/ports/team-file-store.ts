/**
 * A copy of each team's own files — its deliverable, learning log and run records — kept beside its
 * lifecycle on a backend shared across machines (JetStream), so a team moved off a lost host gets them
 * back on the new one. Absent on files (one machine: the workspace is the only copy needed).
 */
export interface TeamFileStore {
  /** Where the copies are, for messages. */
  readonly location: string;
  /** Keep `content` as the team's file `name` (replacing the copy before); returns the copy's revision. */
  put(team: string, name: string, content: Uint8Array): Promise<number>;
  /**
   * The team's kept copy of file `name`, if there is one: its content and the store's revision of it,
   * higher for each later copy.
   */
  get(team: string, name: string): Promise<{ content: Uint8Array; revision: number } | undefined>;
  /** The team's kept files, by name. */
  read(team: string): Promise<Map<string, { content: Uint8Array; revision: number }>>;
}
