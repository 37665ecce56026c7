import type {
  PartyCensus,
  SendRoute,
  SentSignal,
  SignalTransport,
  TransportSendOptions,
  TransportWriteOptions,
  InboxOptions,
} from '../../ports/signal-transport.js';
import { newestSignals, type BoxedSignal, type NewestPage } from './signals/newest-signals.js';
import type { SignalParty } from '../../core/resolve-party.js';
import { toJsonText } from '../../core/json-text.js';
import { SIGNAL_PROTOCOL, type SignalBox, type SignalMessage } from '../../core/schema/signal.js';
import type { CheckedWorkspaces } from '../checked-workspaces.js';
import { partyWorkspace, type SignalWorkspace } from './signals/resolve-workspace.js';
import { deliverSignal } from './signals/send-signal.js';
import { censusOfBoxes } from './box-census.js';
import { signalFileName } from './signals/signal-file-name.js';
import { FileSignalInbox, FileSignalOutbox } from './file-signal-inbox.js';
import { FileSignalArchive } from './archive/file-signal-archive.js';
import { FileStuckSignalCensus } from './signals/stuck-candidates.js';

/**
 * file-signal-v1 (docs/design/spec.md §4): a party's boxes are folders of its workspace — meta's in the federation root,
 * a team's at its registry `location`, which must be its own workspace inside the root; no box is written
 * through a link. Every signal and ack file is published complete and never replaces another (src/infra/fs).
 */
export class FileSignalTransport implements SignalTransport {
  readonly protocol = SIGNAL_PROTOCOL;
  private readonly root: string;
  private readonly workspaces: CheckedWorkspaces;
  readonly archive: FileSignalArchive;
  readonly stuckCensus: FileStuckSignalCensus;

  constructor(root: string, workspaces: CheckedWorkspaces) {
    this.root = root;
    this.workspaces = workspaces;
    this.archive = new FileSignalArchive(root, workspaces);
    this.stuckCensus = new FileStuckSignalCensus(root);
  }

  async send(message: SignalMessage, route: SendRoute, options: TransportSendOptions = {}): Promise<SentSignal> {
    return (await this.prepareSend(route, options))(message, options);
  }

  /**
   * The recipient's inbox and the sender's outbox, each checked as a write into its workspace is, and made
   * when missing — so a file where a box belongs is refused here too (ENOTDIR), not by the send's first write.
   */
  async prepareSend(route: SendRoute, options: TransportWriteOptions = {}): ReturnType<SignalTransport['prepareSend']> {
    const recipient = this.boxForWrite(route.to, 'inbox', options);
    const sender = this.boxForWrite(route.from, 'outbox', options);
    return (message, sendOptions = {}) => {
      const earlier = !sendOptions.idempotent ? 'none' : sendOptions.claimed ? 'same-name' : 'same-subject';
      const firstName =
        sendOptions.firstSentAt === undefined
          ? undefined
          : signalFileName({ ...message, timestamp: sendOptions.firstSentAt });
      return deliverSignal(
        recipient,
        sender,
        { message, text: toJsonText(message) },
        { earlier, firstName },
        { durable: sendOptions.durable ?? true },
      );
    };
  }

  /** The party's workspace, once its `box` folder passed the check before a write (see prepareSend). */
  private boxForWrite(party: SignalParty, box: SignalBox, options: TransportWriteOptions): SignalWorkspace {
    const workspace = partyWorkspace(this.root, party, (entry, paths) =>
      this.workspaces.folderForWrite(entry, paths[box], options),
    );
    if (workspace.entry === undefined) this.workspaces.meta.folderForWrite(workspace[box], options);
    return workspace;
  }

  inbox(party: SignalParty, options: InboxOptions = {}): FileSignalInbox {
    // The inbox writes acknowledgments (and quarantines) into its folder.
    const workspace = partyWorkspace(this.root, party, (entry, paths) =>
      this.workspaces.beforeWrite(entry, paths.inbox),
    );
    const { entry } = workspace;
    if (entry === undefined) this.workspaces.meta.beforeWrite(workspace.inbox);
    return new FileSignalInbox(workspace, options, (folder) =>
      entry === undefined ? this.workspaces.meta.beforeWrite(folder) : this.workspaces.beforeWrite(entry, folder),
    );
  }

  outbox(party: SignalParty): FileSignalOutbox {
    return new FileSignalOutbox(partyWorkspace(this.root, party, (entry) => this.workspaces.workspace(entry)));
  }

  async provision(party: SignalParty, options: TransportWriteOptions = {}): Promise<void> {
    const workspace = partyWorkspace(this.root, party, (entry, paths) => {
      this.workspaces.folderForWrite(entry, paths.inbox, options);
      return this.workspaces.folderForWrite(entry, paths.outbox, options);
    });
    // Meta's boxes (a team's were made above).
    if (workspace.entry === undefined)
      for (const dir of [workspace.inbox, workspace.outbox]) this.workspaces.meta.folderForWrite(dir, options);
  }

  async newest(boxes: ReadonlyArray<{ party: SignalParty; box: SignalBox }>, page: NewestPage): Promise<BoxedSignal[]> {
    return newestSignals(
      boxes.map(({ party, box }) => {
        const workspace = partyWorkspace(this.root, party, (entry) => this.workspaces.workspace(entry));
        return { dir: workspace[box], expect: { owner: party.id, box } };
      }),
      page,
    );
  }

  /** From file names alone: see censusOfBoxes. */
  async census(parties: readonly SignalParty[]): Promise<Map<string, PartyCensus>> {
    return censusOfBoxes(this.root, parties);
  }
}
