import { html } from 'htm/preact';
import { useMemo, useState } from 'preact/hooks';
import type { BoardView, TeamCard as TeamCardData } from '../../api-types.js';
import { api } from '../api.js';
import { TeamCard } from '../components/team-card.js';
import { ViewStatus } from '../components/view-status.js';
import { formatCost } from '../format.js';
import { touches, useView } from '../use-view.js';

/**
 * How many cards a group shows at first (two rows or so), and how many more each "Show more" adds: with
 * 1,000 teams the board stays a page to scan, and renders quickly.
 */
export const GROUP_FIRST = 12;
export const GROUP_MORE = 60;

/** States that wait on a person come first, finished ones last; the rest in between, by name. */
const FIRST = ['failed', 'paused', 'pr-review', 'pr-approved'];
const LAST = ['complete', 'merged', 'no lifecycle'];

function groupOrder(state: string): number {
  if (FIRST.includes(state)) return FIRST.indexOf(state) - FIRST.length;
  if (LAST.includes(state)) return 1 + LAST.indexOf(state);
  return 0;
}

export function groupByState(teams: readonly TeamCardData[]): [string, TeamCardData[]][] {
  const groups = new Map<string, TeamCardData[]>();
  for (const team of teams) {
    const state = team.state ?? 'no lifecycle';
    let group = groups.get(state);
    if (!group) groups.set(state, (group = []));
    group.push(team);
  }
  return [...groups].sort(([a], [b]) => groupOrder(a) - groupOrder(b) || a.localeCompare(b));
}

export function Board() {
  const view = useView<BoardView>('board', api.board, touches.board);
  const [filter, setFilter] = useState('');
  const teams = view.data?.teams;
  const groups = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const shown = needle ? (teams ?? []).filter((team) => team.id.toLowerCase().includes(needle)) : (teams ?? []);
    return groupByState(shown);
  }, [teams, filter]);

  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  const { totals } = view.data;
  return html`<section class="view board">
    <header class="view-head">
      <h1>Board</h1>
      <p class="totals">
        <span><strong>${totals.teams}</strong> teams</span>
        <span><strong>${totals.healthy}</strong> healthy</span>
        <span class=${totals.unhealthy ? 'bad' : ''}><strong>${totals.unhealthy}</strong> unhealthy</span>
        <a href="/needs-you"><strong>${totals.needsYou}</strong> need you</a>
        <span>cost <strong>${formatCost(totals.costUsd)}</strong></span>
        <span class="muted">${view.data.backend}</span>
      </p>
      <input
        class="filter"
        type="search"
        placeholder="Filter teams by id"
        aria-label="Filter teams by id"
        value=${filter}
        onInput=${(event: Event) => setFilter((event.currentTarget as HTMLInputElement).value)}
      />
    </header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    ${
      groups.length === 0 &&
      html`<p class="empty">
        ${teams?.length ? 'No team matches the filter.' : 'No teams yet: onboard one with fed team onboard.'}
      </p>`
    }
    ${groups.map(([state, cards]) => html`<${StateGroup} key=${state} state=${state} cards=${cards} />`)}
  </section>`;
}

function StateGroup({ state, cards }: { state: string; cards: TeamCardData[] }) {
  const [limit, setLimit] = useState(GROUP_FIRST);
  const hidden = cards.length - limit;
  return html`<section class="group" data-group=${state}>
    <h2>${state} <span class="count">${cards.length}</span></h2>
    <div class="cards">${cards.slice(0, limit).map((card) => html`<${TeamCard} key=${card.id} card=${card} />`)}</div>
    ${
      hidden > 0 &&
      html`<button type="button" class="more" onClick=${() => setLimit(limit + GROUP_MORE)}>
        Show ${Math.min(hidden, GROUP_MORE)} more
      </button>`
    }
  </section>`;
}
