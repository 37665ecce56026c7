import { html } from 'htm/preact';
import type { TeamCard as TeamCardData } from '../../api-types.js';
import { formatCost, formatRelative } from '../format.js';
import { teamHref } from '../pages.js';
import { navigate } from '../router.js';
import { ActionButtons } from './action-buttons.js';
import { StateBadge } from './state-badge.js';

/** One team on the board. The whole card opens the team's page; its buttons act in place. */
export function TeamCard({ card }: { card: TeamCardData }) {
  const open = (event: MouseEvent) => {
    const target = event.target as Element;
    if (target.closest('a, button, textarea, input, form')) return;
    navigate(teamHref(card.id));
  };
  return html`<article
    class=${`card${card.healthy ? '' : ' unhealthy'}`}
    data-team=${card.id}
    data-state=${card.state ?? ''}
    onClick=${open}
  >
    <header class="card-head">
      <a class="card-title" href=${teamHref(card.id)}>${card.id}</a>
      <${StateBadge} state=${card.state} />
    </header>
    <dl class="facts">
      <dt>Archetype</dt>
      <dd>${card.archetype}</dd>
      <dt>Status</dt>
      <dd><${StateBadge} state=${card.status} /></dd>
      <dt>Last run</dt>
      <dd>
        ${
          card.lastRun
            ? html`<${StateBadge} state=${card.lastRun.outcome} />
                <span class="muted" title=${card.lastRun.endedAt}> ${formatRelative(card.lastRun.endedAt)}</span>`
            : html`<span class="muted">none</span>`
        }
      </dd>
      <dt>Cost</dt>
      <dd>${formatCost(card.costUsd)}</dd>
      <dt>Inbox</dt>
      <dd>
        ${card.inbox.total}${card.inbox.unacknowledged ? html` <span class="muted">(${card.inbox.unacknowledged} open)</span>` : ''}
      </dd>
    </dl>
    ${
      card.healthy
        ? html`<p class="health ok">healthy</p>`
        : html`<ul class="health bad">
            ${card.reasons.map((reason) => html`<li>${reason}</li>`)}
          </ul>`
    }
    <${ActionButtons} actions=${card.actions} team=${card.id} />
  </article>`;
}
