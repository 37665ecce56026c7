import type { TeamFileStore } from '../../ports/team-file-store.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

/** The teams' files as KV bucket `fed_<name>_files`, one entry per team and file: `<team>.<file>`. */
export class JetStreamTeamFileStore implements TeamFileStore {
  readonly location: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} KV ${names.teamFileBucket}`;
  }

  async put(team: string, name: string, content: Uint8Array): Promise<void> {
    const { teamFiles } = await this.streams();
    await retryTransient(() => teamFiles.put(`${team}.${name}`, content));
  }

  async read(team: string): Promise<Map<string, Uint8Array>> {
    const { teamFiles } = await this.streams();
    const keys: string[] = [];
    for await (const key of await retryTransient(() => teamFiles.keys(`${team}.*`))) keys.push(key);
    const files = new Map<string, Uint8Array>();
    for (const key of keys) {
      const entry = await retryTransient(() => teamFiles.get(key));
      if (entry?.operation === 'PUT') files.set(key.slice(team.length + 1), entry.value);
    }
    return files;
  }
}
