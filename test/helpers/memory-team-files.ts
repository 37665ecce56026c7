import { openFederation, type Federation, type TeamFileStore } from 'fed';

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
  const backend = Object.create(openFederation(root).backend, { teamFiles: { value: store } });
  return openFederation(root, { backend });
}
