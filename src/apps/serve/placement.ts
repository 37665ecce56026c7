import { existsSync } from 'node:fs';
import { RefusedError } from '../../core/errors.js';
import { teamWorkspacePath } from '../../core/layout.js';
import { ANY_HOST, type RegistryEntry } from '../../core/schema/registry.js';
import type { Federation } from '../../engine/context.js';
import { createWorkspace, type CreatedWorkspace } from '../../engine/registry/placement.js';
import { prepareTeamWorkspace } from '../../engine/registry/team-marker.js';
import { bringWorktreeToCodebase, createWorktreeFromCodebase } from '../../engine/registry/worktree-from-codebase.js';
import { claimUnplacedTeam } from '../hosts/move-team.js';
import { restoreTeamFiles } from '../hosts/team-files.js';
import { orphanRunRecord } from '../launch/prepare/finish-orphaned-run.js';
import { appendRun, clearCurrentRun, readCurrentRun } from '../launch/run-records.js';
import { processIsAlive } from '../../infra/fs/process-identity.js';

const LEFT_BEHIND = 'cut short on this host, which the team left; it went on elsewhere';

/**
 * Which teams a server serves. On a federation shared across machines, a team is dispatched only by the
 * server of the host it is placed on (its registry `host`; a team registered without one, by the server
 * of the working directory its workspace is in, as before hosts existed). On files, every team. An
 * unplaced team (registry `host` "*") is any host's: its work goes through the shared queue, and the
 * server that takes a piece of it makes the team's workspace here (`claim`) and runs it.
 *
 * A team moved here (`fed team move`, failover) has no workspace here yet: it is made, as onboarding
 * makes one, the first time this server serves the team, with the team's own files as its last host's
 * server kept them while and after each launch (team-files.ts); everything else of the team (its
 * lifecycle, signals, journal) is in JetStream already. A team that comes back to a workspace it had here
 * before gets the files its launches elsewhere changed since, and a worktree the commits they made. A
 * worktree team's workspace is a worktree of this host's clone of the codebase at the commit the team
 * worked on (worktree-from-codebase.ts); when that cannot be made or brought there (the commit not to be
 * had, the team's branch here in the way, changes here a fast-forward would lose) the team is not served,
 * said once, and tried again later.
 */
export class Placement {
  constructor(
    private readonly fed: Federation,
    private readonly host: string,
    /** Told when a moved team's workspace was made here (its actor can join now). */
    private readonly onArrived: (team: string) => void,
    /** Told when a moved team's workspace cannot be made here (once per reason); the team is judged again later. */
    private readonly onRefused: (team: string, refusal: RefusedError) => void,
  ) {}

  /** The teams placed here whose workspace this server made or brought up to date: served as they are. */
  private readonly arrived = new Set<string>();
  /** Unplaced teams whose work this server took, while it makes their workspace here. */
  private readonly claiming = new Set<string>();
  /** The last refusal told per team, so one that repeats is told once. */
  private readonly refused = new Map<string, string>();

  async serves(team: RegistryEntry): Promise<boolean> {
    if (!this.fed.backend.hosts || team.host === undefined) return true;
    if (team.host !== this.host) {
      // Placed elsewhere now: should it come back, its files are brought up to date again.
      this.arrived.delete(team.domainId);
      return false;
    }
    if (this.arrived.has(team.domainId)) return true;
    if (!(await this.arrives(team))) return false;
    this.arrived.add(team.domainId);
    return true;
  }

  /** Whether the team's workspace here is made or brought up to date; a refusal is told (once per reason). */
  private async arrives(team: RegistryEntry): Promise<boolean> {
    try {
      await this.arrive(team);
    } catch (error) {
      // One team's workspace that cannot be made (yet) stops that team only, not the dispatch of the others.
      if (!(error instanceof RefusedError)) throw error;
      if (this.refused.get(team.domainId) !== error.message) this.onRefused(team.domainId, error);
      this.refused.set(team.domainId, error.message);
      return false;
    }
    this.refused.delete(team.domainId);
    return true;
  }

  /**
   * Whether the team's workspace here is missing only because this server has yet to make it: the team was
   * just placed here (moved by a person or a failover, not served here since) or its work just taken here,
   * and the registry puts it where this server makes it. Not a lost workspace: serving the team makes it,
   * or says why it cannot. Once this server made it (or found it), a missing workspace is one to tell.
   */
  arriving(team: RegistryEntry): boolean {
    if (!this.fed.backend.hosts || team.location !== teamWorkspacePath(this.fed.root, team.domain, team.placementType))
      return false;
    return (team.host === this.host && !this.arrived.has(team.domainId)) || this.claiming.has(team.domainId);
  }

  /**
   * Whether the team is unplaced and this server takes its work through the shared queue (JetStream). On
   * files there is one host: an unplaced team is simply this host's.
   */
  unplaced(team: RegistryEntry): boolean {
    return this.fed.backend.work !== undefined && team.host === ANY_HOST;
  }

  /**
   * An unplaced team whose work this server took: its workspace here, made as for a team moved here.
   * Undefined when it cannot be made here now (told as for a moved team).
   */
  async claim(team: RegistryEntry): Promise<RegistryEntry | undefined> {
    this.claiming.add(team.domainId);
    try {
      const here = await claimUnplacedTeam(this.fed, team.domainId, this.fed.root);
      // Another host may have run it since it last ran here: every take brings its files (and commits) up to date.
      return (await this.arrives(here)) ? here : undefined;
    } finally {
      this.claiming.delete(team.domainId);
    }
  }

  /**
   * The team's workspace here: made when missing, else given the files its launches elsewhere kept since
   * (and a worktree the commits they made).
   */
  private async arrive(team: RegistryEntry): Promise<void> {
    if (!existsSync(team.location)) return this.makeWorkspace(team);
    if (team.placementType === 'worktree') await bringWorktreeToCodebase(this.fed.root, team);
    const restored = await restoreTeamFiles(this.fed, team);
    if (restored.includes('runs-journal')) this.closeLeftRun(team);
  }

  /**
   * A run in progress left in the workspace by a launch cut short here (its host lost) before the team went
   * on elsewhere: recorded as interrupted, after the runs since, never finished as its own — the lifecycle
   * it would be judged by is the later launches'.
   */
  private closeLeftRun(team: RegistryEntry): void {
    const left = readCurrentRun(team.location);
    if (!left || processIsAlive(left.launcherPid) || processIsAlive(left.pid, left.processStart ?? undefined)) return;
    appendRun(
      this.fed,
      team,
      orphanRunRecord(left, team.location, {
        outcome: 'interrupted',
        reason: LEFT_BEHIND,
        stateAfter: left.stateBefore,
      }),
    );
    clearCurrentRun(this.fed, team);
  }

  private async makeWorkspace(team: RegistryEntry): Promise<void> {
    // Only the workspace fed would make for the team here.
    if (team.location !== teamWorkspacePath(this.fed.root, team.domain, team.placementType)) return;
    const worktree = team.placementType === 'worktree';
    const made: CreatedWorkspace = worktree
      ? await createWorktreeFromCodebase(this.fed.root, team)
      : await createWorkspace(this.fed.root, team.domain, 'directory');
    try {
      prepareTeamWorkspace(this.fed.root, team.location, team.domainId, worktree);
      await restoreTeamFiles(this.fed, team);
    } catch (error) {
      // Made whole or not at all: the next pass makes it again.
      await made.remove();
      throw error;
    }
    this.onArrived(team.domainId);
  }
}
