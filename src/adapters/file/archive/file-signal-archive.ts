import type { SignalParty } from '../../../core/resolve-party.js';
import type { SignalBox } from '../../../core/schema/signal.js';
import type { ArchiveBoxOptions, BoxArchiveCount, PartyArchive, SignalArchive } from '../../../ports/signal-archive.js';
import type { FindHint, SignalEntry, SignalReadResult } from '../../../ports/signal-transport.js';
import type { CheckedWorkspaces } from '../../checked-workspaces.js';
import { readSignalEntry } from '../signals/read-signal-entry.js';
import { partyWorkspace, type SignalWorkspace } from '../signals/resolve-workspace.js';
import { archiveBox } from './archive-box.js';
import { archiveDirectoryOf, findArchivedSignal, readArchivedSignals } from './box-archive.js';

/** SignalArchive of file-signal-v1: each box's `archive/` folder (box-archive.ts). */
export class FileSignalArchive implements SignalArchive {
  readonly supported = true;

  constructor(
    private readonly root: string,
    private readonly workspaces: CheckedWorkspaces,
  ) {}

  of(party: SignalParty): PartyArchive {
    const workspace = partyWorkspace(this.root, party, (entry) => this.workspaces.workspace(entry));
    const { entry } = workspace;
    return new FilePartyArchive(workspace, (folder) =>
      entry === undefined ? this.workspaces.meta.folderForWrite(folder) : this.workspaces.folderForWrite(entry, folder),
    );
  }
}

class FilePartyArchive implements PartyArchive {
  constructor(
    private readonly workspace: SignalWorkspace,
    private readonly folderForWrite: (folder: string) => void,
  ) {}

  archive(box: SignalBox, options: ArchiveBoxOptions): Promise<BoxArchiveCount> {
    return archiveBox(this.workspace[box], this.expect(box), options, this.folderForWrite);
  }

  async list(box: SignalBox): Promise<SignalReadResult> {
    return readArchivedSignals(this.workspace[box], this.expect(box));
  }

  async find(box: SignalBox, id: string, hint?: FindHint): Promise<SignalEntry | undefined> {
    return findArchivedSignal(this.workspace[box], this.expect(box), id, hint);
  }

  async lookup(box: SignalBox, handle: string, id: string): Promise<SignalEntry | undefined> {
    return readSignalEntry(archiveDirectoryOf(this.workspace[box]), handle, this.expect(box), id);
  }

  private expect(box: SignalBox) {
    return { owner: this.workspace.id, box };
  }
}
