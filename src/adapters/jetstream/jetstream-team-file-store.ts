import type { TeamFileStore } from '../../ports/team-file-store.js';
import { bucketKeys } from './bucket-keys.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

/**
 * The teams' files as KV bucket `fed_<name>_files`, one entry per team and file: `<team>.<file>`. A copy's
 * revision is its entry's (the bucket stream's sequence): later copies always number higher.
 */
export class JetStreamTeamFileStore implements TeamFileStore {
  readonly location: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly names: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} KV ${names.teamFileBucket}`;
  }

  async put(team: string, name: string, content: Uint8Array): Promise<number> {
    const { teamFiles } = await this.streams();
    return retryTransient(() => teamFiles.put(`${team}.${name}`, content));
  }

  async get(team: string, name: string): Promise<{ content: Uint8Array; revision: number } | undefined> {
    const { teamFiles } = await this.streams();
    const entry = await retryTransient(() => teamFiles.get(`${team}.${name}`));
    return entry?.operation === 'PUT' ? { content: entry.value, revision: entry.revision } : undefined;
  }

  async read(team: string): Promise<Map<string, { content: Uint8Array; revision: number }>> {
    const { session } = await this.streams();
    const keys = await bucketKeys(session, this.names.teamFileBucket, `${team}.*`);
    const files = new Map<string, { content: Uint8Array; revision: number }>();
    for (const key of keys) {
      const name = key.slice(team.length + 1);
      const file = await this.get(team, name);
      if (file) files.set(name, file);
    }
    return files;
  }
}
