import { statusOf } from '../../../core/find-team.js';
import { META } from '../../../core/schema/common.js';
import type { RegistryEntry } from '../../../core/schema/registry.js';
import type { Federation } from '../../../engine/context.js';
import type { FederationChange } from '../../../ports/federation-changes.js';
import type { SignalInbox } from '../../../ports/signal-transport.js';
import type { CensusWithCandidates } from '../../../ports/stuck-signal-census.js';
import { byWaitingLongest } from '../../needs-you/needs-you.js';
import { metaOpenSignals } from '../../needs-you/signal-items.js';
import { lostHostNeedsYou } from '../../needs-you/host-items.js';
import type { BoardView, NeedsYouEntry, NeedsYouView } from '../api-types.js';
import { StuckSignalViews, type StuckMarks } from './stuck-views.js';
import { itemActions, teamFacts, type TeamFacts } from './team-card.js';

/** Meta, as the asker of a question to itself: a party that is never archived. */
const META_ASKER = { status: 'active', state: null } as const;

interface CachedTeam {
  /** The registry entry the facts were computed from: a registry change recomputes only the teams it changed. */
  entry: string;
  facts: TeamFacts;
}

/**
 * The board and the needs-you queue, kept between requests and recomputed only where a change says
 * something changed (a team-scoped change recomputes that team's card): with a thousand teams a page load
 * reads nothing it read before. A change arriving while a view is computed marks it stale again.
 */
export class UiViews {
  private readonly teams = new Map<string, CachedTeam>();
  private readonly staleTeams = new Set<string>();
  private registryStale = true;
  private order: RegistryEntry[] = [];
  private meta: NeedsYouEntry[] = [];
  private metaStale = true;
  private stuck = { problems: [] as string[], count: 0 };
  private readonly stuckViews: StuckSignalViews;
  private computing: Promise<void> | undefined;
  private readonly metaInbox: SignalInbox;

  constructor(private readonly fed: Federation) {
    this.metaInbox = fed.backend.signals.inbox({ id: META, entry: undefined });
    this.stuckViews = new StuckSignalViews(fed);
  }

  /** Forget what `change` names; the next request recomputes it. */
  invalidate(change: FederationChange): void {
    this.stuckViews.invalidate(change);
    switch (change.scope) {
      case 'registry':
        this.registryStale = true;
        break;
      case 'team':
        this.staleTeams.add(change.team);
        break;
      case 'meta':
      case 'delivery':
        this.metaStale = true;
        break;
      case 'all':
        this.registryStale = true;
        for (const id of this.teams.keys()) this.staleTeams.add(id);
        this.metaStale = true;
        break;
      case 'journal':
      case 'federation':
      case 'hosts':
        // Nothing kept here shows them: the federation view reads its files (and the hosts) on each request.
        break;
    }
  }

  /** After an action of this server on `team`: what it may have changed is read again, at once. */
  invalidateAfterAction(team: string): void {
    this.registryStale = true;
    this.staleTeams.add(team);
    this.metaStale = true;
    // What it sent or answered: the team's inbox and meta's, and the delivery facts.
    for (const change of [
      { scope: 'team', team, what: 'inbox' },
      { scope: 'meta', what: 'inbox' },
      { scope: 'delivery' },
    ] as const)
      this.stuckViews.invalidate(change);
  }

  /**
   * Read again what depends on the clock alone — health (a stale state, a dead launcher, an agent log's
   * errors) and overdue signals — and say what changed, as the changes to tell the pages: each team whose
   * facts changed, and `delivery` when the stuck signals did. Nothing changed: nothing to tell. Only what
   * the clock can have changed is read: a team while its launch runs or once its `clock.at` has come, the
   * stuck signals of an inbox once a deadline seen ahead in it has passed — an idle dashboard of a thousand
   * teams reads nothing.
   */
  async recheckClock(): Promise<FederationChange[]> {
    await this.refresh();
    const now = this.fed.now().getTime();
    const due = [...this.teams].filter(([, { facts }]) => facts.clock.watch || (facts.clock.at ?? Infinity) <= now);
    const shown = (facts: TeamFacts) => JSON.stringify([facts.card, facts.needsYou]);
    const before = new Map(due.map(([id, team]) => [id, shown(team.facts)]));
    const stuckBefore = JSON.stringify(this.stuck);
    for (const [id] of due) this.staleTeams.add(id);
    this.stuckViews.comeDue(now);
    await this.refresh();
    const changes: FederationChange[] = [...this.teams]
      .filter(([id, team]) => before.has(id) && before.get(id) !== shown(team.facts))
      .map(([team]) => ({ scope: 'team', team, what: 'lifecycle' }));
    if (JSON.stringify(this.stuck) !== stuckBefore) changes.push({ scope: 'delivery' });
    return changes;
  }

  async board(): Promise<BoardView> {
    await this.refresh();
    const cards = this.order.map((entry) => this.teams.get(entry.domainId)!.facts.card);
    const healthy = cards.filter((card) => card.healthy).length;
    const costs = cards.map((card) => card.costUsd).filter((cost): cost is number => cost !== null);
    return {
      generatedAt: this.fed.now().toISOString(),
      teams: cards,
      totals: {
        teams: cards.length,
        healthy,
        unhealthy: cards.length - healthy,
        needsYou: this.needsYouItems().length,
        costUsd: costs.length ? costs.reduce((sum, cost) => sum + cost, 0) : null,
      },
      backend: this.fed.backend.name,
      root: this.fed.root,
    };
  }

  async needsYou(): Promise<NeedsYouView> {
    await this.refresh();
    const problems = [
      ...this.order.flatMap((entry) => {
        const { card } = this.teams.get(entry.domainId)!.facts;
        return card.healthy ? [] : [`team ${card.id}: ${card.reasons.join('; ')}`];
      }),
      ...this.stuck.problems,
    ];
    // A lost host is a matter of time, not of a change: its teams' items are read at each request.
    const lostHosts = (await lostHostNeedsYou(this.fed)).map((item) => ({ ...item, actions: [] }));
    const items = [...this.needsYouItems(), ...lostHosts].sort(byWaitingLongest);
    return { generatedAt: this.fed.now().toISOString(), items, problems };
  }

  /**
   * The cached facts of one team (fresh), or undefined when it is not registered. A team the views do not
   * know yet (onboarded a moment ago, its registry change still on the way) is looked up in the registry.
   */
  async team(id: string): Promise<TeamFacts | undefined> {
    await this.refresh();
    if (!this.teams.has(id)) {
      this.registryStale = true;
      await this.refresh();
    }
    return this.teams.get(id)?.facts;
  }

  /** Stuck signals (overdue, undeliverable) as the monitor finds them, counted and said. */
  async stuckSignals(): Promise<{ problems: string[]; count: number }> {
    await this.refresh();
    return this.stuck;
  }

  private needsYouItems(): NeedsYouEntry[] {
    const teams = new Map(this.order.map((entry) => [entry.domainId, entry]));
    const teamItems = this.order.flatMap((entry) => {
      const { card, needsYou, retryable } = this.teams.get(entry.domainId)!.facts;
      const team = { status: statusOf(entry), state: card.state, retryable };
      return needsYou.map((item): NeedsYouEntry => ({ ...item, actions: itemActions(item, team) }));
    });
    // A question's actions follow its asker's registry entry as it is now (archived or removed since it
    // asked: no answer is taken), so they are decided here, not kept with the question. Meta asking
    // itself (no team) is always there.
    const metaItems = this.meta.map((entry): NeedsYouEntry => {
      const asker = entry.team === null ? undefined : teams.get(entry.team);
      const there = entry.team === null ? META_ASKER : asker && { status: statusOf(asker), state: null };
      return { ...entry, actions: itemActions(entry, there) };
    });
    return [...teamItems, ...metaItems].sort(byWaitingLongest);
  }

  /** One refresh at a time: concurrent requests wait for the same one, then recheck. */
  private async refresh(): Promise<void> {
    while (this.computing) await this.computing;
    if (!this.registryStale && this.staleTeams.size === 0 && !this.metaStale && !this.stuckViews.stale) return;
    this.computing = this.recompute().finally(() => (this.computing = undefined));
    await this.computing;
  }

  /**
   * Each flag is cleared before its read, so a change during the read sets it again for the next request.
   * A read that throws puts back every flag it cleared (and the teams it meant to read), so the next
   * request reads them again instead of showing a card that was never computed.
   */
  private async recompute(): Promise<void> {
    const flags = { registry: this.registryStale, meta: this.metaStale };
    const stale = new Set(this.staleTeams);
    this.staleTeams.clear();
    try {
      await this.recomputeFlagged(stale);
    } catch (error) {
      for (const id of stale) this.staleTeams.add(id);
      this.registryStale ||= flags.registry;
      this.metaStale ||= flags.meta;
      throw error;
    }
  }

  private async recomputeFlagged(stale: Set<string>): Promise<void> {
    // A registry read may have archived, moved, added or removed a party: the stuck views compare. Their
    // marks are taken before the census, whose look at the inboxes they reuse (a change told meanwhile
    // marks them again for the next refresh), and given back if any read fails.
    const stuckMarks = this.registryStale || this.stuckViews.stale ? this.stuckViews.takeMarks() : undefined;
    try {
      await this.recomputeMarked(stale, stuckMarks);
    } catch (error) {
      if (stuckMarks) this.stuckViews.restore(stuckMarks);
      throw error;
    }
  }

  private async recomputeMarked(stale: Set<string>, stuckMarks: StuckMarks | undefined): Promise<void> {
    const { backend } = this.fed;
    const now = this.fed.now();
    if (this.registryStale) {
      this.registryStale = false;
      const registry = await backend.registry.read();
      this.order = [...registry.teams].sort((a, b) => a.domainId.localeCompare(b.domainId));
      const present = new Set(this.order.map((entry) => entry.domainId));
      for (const id of this.teams.keys()) if (!present.has(id)) this.teams.delete(id);
      for (const entry of this.order)
        if (this.teams.get(entry.domainId)?.entry !== JSON.stringify(entry)) stale.add(entry.domainId);
    }
    const entries = this.order.filter((entry) => stale.has(entry.domainId));
    let listing: CensusWithCandidates | undefined;
    if (entries.length) {
      const parties = entries.map((entry) => ({ id: entry.domainId, entry }));
      // Where the stuck views look at inboxes too, the census's look serves both: a first board over a
      // thousand teams lists each inbox once, not twice.
      const { stuckCensus } = backend.signals;
      if (stuckMarks && stuckCensus.supported)
        listing = await stuckCensus.censusWithCandidates(parties, { deadlines: this.stuckViews.deadlines, now });
      const census = listing?.census ?? (await backend.signals.census(parties));
      for (const entry of entries) {
        const facts = await teamFacts(this.fed, entry, census.get(entry.domainId)!);
        this.teams.set(entry.domainId, { entry: JSON.stringify(entry), facts });
      }
    }
    if (this.metaStale) {
      this.metaStale = false;
      this.meta = await this.metaItems();
    }
    if (stuckMarks) {
      await this.stuckViews.refresh(this.order, now, stuckMarks, listing);
      const signals = this.stuckViews.signals();
      this.stuck = {
        count: signals.length,
        problems: signals.map(
          (signal) =>
            `${signal.type} ${signal.id} from ${signal.from} to ${signal.to} is ${signal.state}${signal.dueAt ? ` (due ${signal.dueAt})` : ''}${signal.reason ? `: ${signal.reason}` : ''}`,
        ),
      };
    }
  }

  /** Meta's open questions (with who asked and what, to answer in place) and escalations. */
  private async metaItems(): Promise<NeedsYouEntry[]> {
    return (await metaOpenSignals(this.fed, this.metaInbox)).map(({ item, message }): NeedsYouEntry => {
      // The actions are decided when the queue is shown (needsYouItems), against the registry then.
      const entry: NeedsYouEntry = { ...item, actions: [] };
      if (item.kind === 'question')
        Object.assign(entry, { from: message.from, subject: message.subject, body: message.body });
      return entry;
    });
  }
}
