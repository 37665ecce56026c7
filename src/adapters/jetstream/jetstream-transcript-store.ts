import type { ObjectStore } from '@nats-io/obj';
import type { TranscriptStore } from '../../ports/transcript-store.js';
import { objectNames } from './bucket-keys.js';
import type { FederationStreams } from './federation-streams.js';
import type { JetStreamNames } from './names.js';
import { retryTransient } from './transient.js';

/** How the object store names a digest: `SHA-256=` and the digest in padded base64url. */
const DIGEST_PREFIX = 'SHA-256=';

/**
 * The runs' transcripts and prompts as the object store `fed_<name>_transcripts`, one object per team and
 * file: `<team>/<file>`. The store cuts each into chunks (a transcript is megabytes, past any message's
 * size) and writes its description only once every chunk is in, checking the digest on every read: a put
 * cut short (a full store, a lost server) leaves the copy before as it was and its own chunks removed, and
 * no reader ever takes part of a file for the whole.
 */
export class JetStreamTranscriptStore implements TranscriptStore {
  readonly location: string;

  constructor(
    private readonly streams: () => Promise<FederationStreams>,
    private readonly jetStreamNames: JetStreamNames,
    where: string,
  ) {
    this.location = `${where} object store ${jetStreamNames.transcriptBucket}`;
  }

  async put(team: string, name: string, content: Uint8Array): Promise<void> {
    const store = await this.store();
    try {
      await retryTransient(() => store.putBlob({ name: objectName(team, name) }, content));
    } catch (error) {
      throw new Error(
        `${team}'s ${name} (${content.length} bytes) was not kept in ${this.location}, which refused it (${(error as Error).message}); the copy kept before, if any, stands`,
        { cause: error },
      );
    }
  }

  async get(team: string, name: string): Promise<Uint8Array | undefined> {
    const store = await this.store();
    return (await retryTransient(() => store.getBlob(objectName(team, name)))) ?? undefined;
  }

  async digest(team: string, name: string): Promise<string | undefined> {
    const store = await this.store();
    const info = await retryTransient(() => store.info(objectName(team, name)));
    if (!info || info.deleted || !info.digest.startsWith(DIGEST_PREFIX)) return undefined;
    return Buffer.from(info.digest.slice(DIGEST_PREFIX.length), 'base64url').toString('hex');
  }

  async names(team: string): Promise<string[]> {
    const { session, transcripts } = await this.streams();
    const prefix = objectName(team, '');
    const named = (await objectNames(session, this.jetStreamNames.transcriptBucket)).filter((name) =>
      name.startsWith(prefix),
    );
    const infos = await Promise.all(named.map((name) => retryTransient(() => transcripts.info(name))));
    return infos
      .filter((info) => info !== null && !info.deleted)
      .map((info) => info!.name.slice(prefix.length))
      .sort();
  }

  private async store(): Promise<ObjectStore> {
    return (await this.streams()).transcripts;
  }
}

/** Team ids are never empty and hold no `/`, so `<team>/` sets one team's files apart from every other's. */
function objectName(team: string, name: string): string {
  return `${team}/${name}`;
}
