import { federationPaths, workspacePaths } from './file-layout.js';
import { DEFAULT_DELIVERABLE, DEFAULT_FEDERATION_REPORT } from '../../core/schema/config.js';
import { FEDERATION_JOURNAL_FILE } from '../../core/schema/federation-journal.js';
import { ENVELOPE_FILE, JOURNAL_FILE } from '../../core/schema/lifecycle-state.js';
import { RUNS_JOURNAL_FILE } from '../../core/schema/launch-run.js';
import { REGISTRY_FILE, type RegistryEntry } from '../../core/schema/registry.js';
import { TEAM_ACTIVITY_FILE } from '../../core/schema/team-activity.js';
import { CoalesceByKey } from '../../infra/watch/coalesce-by-key.js';
import { SharedDirectoryWatchers } from '../../infra/watch/shared-directory-watchers.js';
import { watchFederationFiles } from '../../infra/watch/watch-federation-files.js';
import { watchFolder } from '../../infra/watch/watch-folder.js';
import type { ChangeWatch, FederationChange, FederationChanges } from '../../ports/federation-changes.js';
import { deliveryDirectory } from './file-delivery-fact-store.js';
import { readRegistry } from './registry-file.js';

/** How long a burst of one change is gathered before it is told (an atomic write alone is two events). */
const COALESCE_MS = 25;

type TeamWhat = Extract<FederationChange, { scope: 'team' }>['what'];

/**
 * The change feed of file-signal-v1: `fs.watch` on the folders that hold what changes (never on files, which
 * fed replaces by rename), each filtered to the entries that matter. Six folders per team, shared
 * where they coincide; no timers but the short coalescing one, so an idle federation costs nothing.
 */
export class FileFederationChanges implements FederationChanges {
  /**
   * `deliverable`: the file name of a team's deliverable in its workspace (config `deliverable`);
   * `federationReport`: the federation report's, at the root (config `federationReport`).
   */
  constructor(
    private readonly root: string,
    private readonly deliverable = DEFAULT_DELIVERABLE,
    private readonly federationReport = DEFAULT_FEDERATION_REPORT,
  ) {}

  watch(listener: (change: FederationChange) => void, onError?: (error: Error) => void): ChangeWatch {
    return new FileChangeWatch(this.root, this.deliverable, this.federationReport, listener, onError);
  }
}

class FileChangeWatch implements ChangeWatch {
  /** The folders are watched once the constructor returns. */
  readonly ready = Promise.resolve();
  private readonly watchers = new SharedDirectoryWatchers();
  private readonly coalesce: CoalesceByKey<FederationChange>;
  private readonly stops: Array<() => void> = [];
  /** Each registered team's stops, by domain and workspace (a team moved elsewhere is watched anew). */
  private readonly teams = new Map<string, Array<() => void>>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly deliverable: string,
    federationReport: string,
    listener: (change: FederationChange) => void,
    private readonly onError: ((error: Error) => void) | undefined,
  ) {
    this.coalesce = new CoalesceByKey(COALESCE_MS, (change) => {
      if (this.closed) return;
      // The teams are read again before the registry change is told, so a listener that reacts to an
      // onboarding hears the new team's changes from then on.
      if (change.scope === 'registry') this.watchTeams();
      listener(change);
    });
    const meta = workspacePaths(this.root);
    this.stops.push(
      this.folder(federationPaths(this.root).fedDir, (name) => {
        // A team's activity is its lastActive as registry reads give it.
        if (name === null || name === REGISTRY_FILE || name === TEAM_ACTIVITY_FILE) this.tell({ scope: 'registry' });
        if (name === null || name === FEDERATION_JOURNAL_FILE) this.tell({ scope: 'journal' });
      }),
      this.folder(deliveryDirectory(this.root), () => this.tell({ scope: 'delivery' })),
      this.folder(meta.inbox, () => this.tell({ scope: 'meta', what: 'inbox' })),
      this.folder(meta.outbox, () => this.tell({ scope: 'meta', what: 'outbox' })),
      watchFederationFiles(this.watchers, this.root, federationReport, {
        onChange: () => !this.closed && this.tell({ scope: 'federation' }),
        onError: (error) => this.fail(error),
      }),
    );
    this.watchTeams();
  }

  /** Folders watched now, the ones waited for through an ancestor included (tests read it). */
  get watchedFolders(): number {
    return this.watchers.size;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.coalesce.clear();
    for (const stop of this.stops.splice(0)) stop();
    for (const stops of this.teams.values()) for (const stop of stops) stop();
    this.teams.clear();
  }

  private tell(change: FederationChange): void {
    const key = change.scope === 'team' ? `team\0${change.team}\0${change.what}` : JSON.stringify(change);
    this.coalesce.push(key, change);
  }

  /** Watch the teams the registry lists now, and stop watching those it no longer lists. */
  private watchTeams(): void {
    let teams: RegistryEntry[];
    try {
      teams = readRegistry(this.root).teams;
    } catch {
      // No registry yet, or one being repaired: keep what is watched; its next change reads it again.
      return;
    }
    const listed = new Map(teams.map((entry) => [`${entry.domain}\0${entry.location}`, entry]));
    for (const [key, stops] of this.teams)
      if (!listed.has(key)) {
        for (const stop of stops) stop();
        this.teams.delete(key);
      }
    for (const [key, entry] of listed) if (!this.teams.has(key)) this.teams.set(key, this.watchTeam(entry));
  }

  private watchTeam(entry: RegistryEntry): Array<() => void> {
    const paths = workspacePaths(entry.location);
    const team = (what: TeamWhat) => this.tell({ scope: 'team', team: entry.domain, what });
    const named =
      (names: readonly string[], what: TeamWhat) =>
      (name: string | null): void => {
        if (name === null || names.includes(name)) team(what);
      };
    return [
      this.folder(paths.state, named([ENVELOPE_FILE, JOURNAL_FILE], 'lifecycle')),
      this.folder(paths.inbox, () => team('inbox')),
      this.folder(paths.outbox, () => team('outbox')),
      this.folder(paths.logs, named([RUNS_JOURNAL_FILE], 'runs')),
      // A run's transcript grows while its agent works: the page tails it.
      this.folder(paths.runTranscripts, () => team('runs')),
      this.folder(paths.workspace, named([this.deliverable], 'deliverable')),
    ];
  }

  private folder(folder: string, onChange: (name: string | null) => void): () => void {
    return watchFolder(this.watchers, folder, {
      onChange: (name) => {
        if (!this.closed) onChange(name);
      },
      onError: (error) => this.fail(error),
    });
  }

  /** A watcher that cannot be opened ends the watch (told after the constructor, which may be where it broke). */
  private fail(error: Error): void {
    queueMicrotask(() => {
      if (this.closed) return;
      void this.close();
      this.onError?.(error);
    });
  }
}
