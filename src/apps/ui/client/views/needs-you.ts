import { html } from 'htm/preact';
import type { NeedsYouEntry, NeedsYouView } from '../../api-types.js';
import { api } from '../api.js';
import { ActionButtons } from '../components/action-buttons.js';
import { Markdown } from '../components/markdown-view.js';
import { ViewStatus } from '../components/view-status.js';
import { formatRelative, formatTime } from '../format.js';
import { signalHref, teamHref } from '../pages.js';
import { touches, useView } from '../use-view.js';

const KIND_LABELS: Record<NeedsYouEntry['kind'], string> = {
  review: 'Review',
  paused: 'Paused',
  failed: 'Failed',
  question: 'Question',
  escalation: 'Escalation',
  'host-lost': 'Host lost',
};

/** Everything waiting on a person, oldest first, each with what resolves it in place. */
export function NeedsYou() {
  const view = useView<NeedsYouView>('needs-you', api.needsYou, touches.needsYou);
  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  const { items, problems } = view.data;
  return html`<section class="view needs-you">
    <header class="view-head">
      <h1>Needs you</h1>
      <p class="totals">
        <span><strong>${items.length}</strong> waiting</span>
      </p>
    </header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    ${
      items.length === 0
        ? html`<p class="empty">Nothing waits on you.</p>`
        : html`<ol class="needs-list">
            ${items.map((item) => html`<${Need} key=${item.id} item=${item} />`)}
          </ol>`
    }
    ${
      problems.length > 0 &&
      html`<div class="panel">
        <h2>Health problems</h2>
        <ul class="problems">
          ${problems.map((problem) => html`<li>${problem}</li>`)}
        </ul>
      </div>`
    }
  </section>`;
}

function Need({ item }: { item: NeedsYouEntry }) {
  return html`<li class="need" data-need=${item.id} data-kind=${item.kind} data-team=${item.team ?? undefined}>
    <div class="need-head">
      <span class=${`badge tone-${item.kind === 'failed' || item.kind === 'escalation' ? 'bad' : 'wait'}`}>
        ${KIND_LABELS[item.kind]}
      </span>
      ${item.team ? html`<a href=${teamHref(item.team)}><strong>${item.team}</strong></a>` : html`<strong>meta</strong>`}
      <span class="muted" title=${item.since}
        >waiting since ${formatTime(item.since)} (${formatRelative(item.since)})</span
      >
      ${
        item.resumeAt &&
        html`<span class="muted" title=${item.resumeAt}>resumes ${formatRelative(item.resumeAt)}</span>`
      }
    </div>
    <p class="need-summary">${item.summary}</p>
    ${
      item.kind === 'question' &&
      (item.subject || item.body) &&
      html`<div class="question">
        ${item.from && html`<p class="muted">From ${item.from}${item.signalId && html` · <a href=${signalHref(item.signalId)}>thread</a>`}</p>`}
        ${item.subject && html`<strong>${item.subject}</strong>`}
        ${item.body && html`<${Markdown} source=${item.body} />`}
      </div>`
    }
    <p class="need-command mono">${item.action}</p>
    <${ActionButtons} actions=${item.actions} team=${item.team} signalId=${item.signalId} />
  </li>`;
}
