import { statusOf } from '../../../core/find-team.js';
import { deadlineTable, type NextDue } from '../../../core/deadlines.js';
import { everyParty } from '../../../core/resolve-party.js';
import { META } from '../../../core/schema/common.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import {
  byTimestamp,
  judgeStuckCandidates,
  stuckCandidates,
  type StuckSignal,
} from '../../../engine/delivery/stuck-signals.js';
import type { FederationChange } from '../../../ports/federation-changes.js';
import type { CensusWithCandidates, StuckCandidate } from '../../../ports/stuck-signal-census.js';

/** The changes a refresh acts on: every inbox, the inboxes named (a team's id or domain, or meta), the delivery facts. */
export interface StuckMarks {
  all: boolean;
  names: ReadonlySet<string>;
  rejudge: boolean;
}

/** What the views hold of one inbox. */
interface InboxStuck {
  /** Its party's status and location when its candidates were chosen: archiving one chooses again. */
  key: string;
  candidates: StuckCandidate[];
  /** The candidates stuck by the delivery facts as last read. */
  stuck: StuckSignal[];
  /** The earliest deadline still ahead among its signals: none of them becomes stuck sooner. */
  due: number | null;
}

/**
 * The dashboard's stuck signals (overdue, undeliverable), kept inbox by inbox, so what a change costs is
 * what it changed: an inbox that changed is looked at again alone (a report to meta — at every team's
 * every transition — lists meta's inbox, not a thousand others), a change of the delivery facts judges
 * again the candidates held without listing anything, and the clock looks at an inbox again only once a
 * deadline it saw ahead there has passed.
 */
export class StuckSignalViews {
  private readonly inboxes = new Map<string, InboxStuck>();
  /** Inboxes to look at again, named as a change names them (a team's id or domain, or meta). */
  private readonly relist = new Set<string>();
  private relistAll = true;
  private rejudge = false;
  /** The federation's signal deadlines, as a census that picks candidates for `refresh` needs them. */
  readonly deadlines;

  constructor(private readonly fed: Federation) {
    this.deadlines = deadlineTable(fed.config.signalDeadlines);
  }

  /** Whether a change since the last refresh calls for one. */
  get stale(): boolean {
    return this.relistAll || this.rejudge || this.relist.size > 0;
  }

  invalidate(change: FederationChange): void {
    if (change.scope === 'team' && change.what === 'inbox') this.relist.add(change.team);
    else if (change.scope === 'meta' && change.what === 'inbox') this.relist.add(META);
    else if (change.scope === 'delivery') this.rejudge = true;
    else if (change.scope === 'all') this.relistAll = true;
  }

  /** Marks the inboxes where a deadline seen ahead has come by `now`; true when there are any. */
  comeDue(now: number): boolean {
    for (const [id, inbox] of this.inboxes) if ((inbox.due ?? Infinity) <= now) this.relist.add(id);
    return this.relist.size > 0;
  }

  /**
   * The changes told since the last refresh, taken: cleared, so a change told from now on marks again.
   * Taken before anything is read for the refresh (a census, whose look at the inboxes `refresh` reuses),
   * and given back with `restore` if a read fails, so the next refresh reads again.
   */
  takeMarks(): StuckMarks {
    const marks = { all: this.relistAll, names: new Set(this.relist), rejudge: this.rejudge };
    this.relistAll = false;
    this.relist.clear();
    this.rejudge = false;
    return marks;
  }

  /** Marks taken by a refresh that did not happen, given back: the next refresh reads again. */
  restore(marks: StuckMarks): void {
    this.relistAll ||= marks.all;
    for (const name of marks.names) this.relist.add(name);
    this.rejudge ||= marks.rejudge;
  }

  /**
   * Brings the held inboxes up to date with the registry's `teams` (a party new, moved or archived is
   * looked at anew, one gone is let go) and the changes `marks` hold (takeMarks). An inbox `listing`
   * looked at — a census taken after the marks — is not looked at again.
   */
  async refresh(
    teams: readonly RegistryEntry[],
    now: Date,
    marked: StuckMarks,
    listing: CensusWithCandidates | undefined,
  ): Promise<void> {
    const parties = everyParty(teams);
    const present = new Set(parties.map((party) => party.id));
    for (const id of this.inboxes.keys()) if (!present.has(id)) this.inboxes.delete(id);
    const { backend } = this.fed;
    for (const party of parties) {
      const key = party.entry ? `${statusOf(party.entry)}\0${party.entry.location}` : '';
      const held = this.inboxes.get(party.id);
      const next: NextDue = { at: null };
      const search = { deadlines: this.deadlines, now, next };
      if (
        marked.all ||
        held?.key !== key ||
        marked.names.has(party.id) ||
        (party.entry !== undefined && marked.names.has(party.entry.domain))
      ) {
        const candidates =
          (await listing?.candidatesOf(party, search)) ?? (await stuckCandidates(backend, [party], search));
        const stuck = await judgeStuckCandidates(backend, candidates, search);
        this.inboxes.set(party.id, { key, candidates, stuck, due: next.at });
      } else if (marked.rejudge) {
        held.stuck = await judgeStuckCandidates(backend, held.candidates, search);
        if (next.at !== null && next.at < (held.due ?? Infinity)) held.due = next.at;
      }
    }
  }

  /** Every stuck signal held, oldest first. */
  signals(): StuckSignal[] {
    return [...this.inboxes.values()].flatMap((inbox) => inbox.stuck).sort(byTimestamp);
  }
}
