import { dirname } from 'node:path';
import type { CheckedRootFolders } from '../checked-root-folders.js';
import { appendJsonLine } from '../../infra/fs/append-line.js';
import { readTextFile } from '../../infra/fs/read-json-file.js';
import { federationPaths } from './file-layout.js';
import type { FederationJournal } from '../../ports/federation-journal.js';
import { federationRecordSchema, type FederationRecord } from '../../core/schema/federation-journal.js';
import { countedJsonLines } from '../../core/schema/json-lines.js';

/** The federation journal in file-signal-v1: `<root>/.fed/journal.jsonl`, one JSON line per record. */
export class FileFederationJournal implements FederationJournal {
  readonly location: string;

  /** `folders`: the root's runtime folders, checked before a write (a link there is refused). */
  constructor(
    root: string,
    private readonly folders: CheckedRootFolders,
  ) {
    this.location = federationPaths(root).federationJournal;
  }

  async append(record: FederationRecord): Promise<void> {
    this.folders.folderForWrite(dirname(this.location));
    appendJsonLine(this.location, record);
  }

  async read(): Promise<FederationRecord[]> {
    return (await this.readCounted()).records;
  }

  async readCounted(): ReturnType<FederationJournal['readCounted']> {
    return countedJsonLines(
      readTextFile(this.location, 'move it aside; fed starts a new journal') ?? '',
      federationRecordSchema,
    );
  }
}
