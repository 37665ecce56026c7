import { createHash } from 'node:crypto';
import { openFederation, type Federation, type TeamFileStore, type TranscriptStore } from 'fed';

/** The store as JetStream's KV keeps it, in memory: one revision counter for every put, as a stream's sequence. */
export class MemoryTeamFiles implements TeamFileStore {
  readonly location = 'memory';
  readonly files = new Map<string, { content: Uint8Array; revision: number }>();
  puts: string[] = [];
  private revision = 0;

  async put(team: string, name: string, content: Uint8Array): Promise<number> {
    this.puts.push(name);
    this.files.set(`${team}.${name}`, { content: Buffer.from(content), revision: ++this.revision });
    return this.revision;
  }

  async get(team: string, name: string) {
    return this.files.get(`${team}.${name}`);
  }

  async read(team: string) {
    const kept = new Map<string, { content: Uint8Array; revision: number }>();
    for (const [key, file] of this.files) if (key.startsWith(`${team}.`)) kept.set(key.slice(team.length + 1), file);
    return kept;
  }
}

/** The federation at `root` with `store` as its backend's team file store, the rest of its backend as it is. */
export function withStore(root: string, store: TeamFileStore): Federation {
  return withStores(root, { teamFiles: store });
}

/** The transcript store as JetStream's object store keeps it, in memory: whole files, by team and name. */
export class MemoryTranscripts implements TranscriptStore {
  readonly location = 'memory transcripts';
  readonly files = new Map<string, Buffer>();
  puts: string[] = [];

  async put(team: string, name: string, content: Uint8Array): Promise<void> {
    this.puts.push(name);
    this.files.set(`${team}/${name}`, Buffer.from(content));
  }

  async get(team: string, name: string) {
    return this.files.get(`${team}/${name}`);
  }

  async digest(team: string, name: string) {
    const content = this.files.get(`${team}/${name}`);
    return content && createHash('sha256').update(content).digest('hex');
  }

  async names(team: string) {
    return [...this.files.keys()].filter((key) => key.startsWith(`${team}/`)).map((key) => key.slice(team.length + 1));
  }
}

/** The federation at `root` with these stores in its backend, the rest of its backend as it is. */
export function withStores(
  root: string,
  stores: { teamFiles?: TeamFileStore; transcripts?: TranscriptStore },
): Federation {
  const backend = Object.create(
    openFederation(root).backend,
    Object.fromEntries(Object.entries(stores).map(([key, value]) => [key, { value }])),
  );
  return openFederation(root, { backend });
}
