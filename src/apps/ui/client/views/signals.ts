import { html } from 'htm/preact';
import { useCallback, useState } from 'preact/hooks';
import type { SignalRow, SignalsView, SignalThreadView } from '../../api-types.js';
import { api } from '../api.js';
import { Markdown } from '../components/markdown-view.js';
import { SignalTable } from '../components/signal-table.js';
import { StateBadge } from '../components/state-badge.js';
import { ViewStatus } from '../components/view-status.js';
import { formatTime } from '../format.js';
import { signalHref, teamHref } from '../pages.js';
import { touches, useView } from '../use-view.js';

export const SIGNALS_PAGE = 100;

/**
 * The federation's signals, newest first. The first page follows live changes; "Older" adds the next
 * page below (older pages do not change when new signals arrive). A selected signal shows its thread.
 */
export function Signals({ signal }: { signal: string | null }) {
  const view = useView<SignalsView>('signals', () => api.signals({ limit: SIGNALS_PAGE }), touches.signals);
  const [older, setOlder] = useState<{ signals: SignalRow[]; next: string | null; error: string | null } | null>(null);
  const [loading, setLoading] = useState(false);

  const next = older ? older.next : (view.data?.next ?? null);
  const loadOlder = useCallback(async () => {
    if (!next) return;
    setLoading(true);
    try {
      const page = await api.signals({ before: next, limit: SIGNALS_PAGE });
      setOlder((previous) => ({
        signals: [...(previous?.signals ?? []), ...page.signals],
        next: page.next,
        error: null,
      }));
    } catch (error) {
      setOlder((previous) => ({
        signals: previous?.signals ?? [],
        next,
        error: error instanceof Error ? error.message : String(error),
      }));
    } finally {
      setLoading(false);
    }
  }, [next]);

  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  // A signal of the first page may have moved onto an older page meanwhile: show each once.
  const firstIds = new Set(view.data.signals.map((row) => row.id));
  const rows = [...view.data.signals, ...(older?.signals ?? []).filter((row) => !firstIds.has(row.id))];
  return html`<section class="view signals">
    <header class="view-head">
      <h1>Signals</h1>
      <p class="totals">
        <span><strong>${rows.length}</strong> shown, newest first</span>
      </p>
    </header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    ${signal && html`<${Thread} key=${signal} id=${signal} />`}
    <div class="panel">
      <${SignalTable} signals=${rows} selected=${signal} empty="No signals yet." />
      ${older?.error && html`<p class="view-error" role="alert">${older.error}</p>`}
      ${
        next &&
        html`<button type="button" class="more" disabled=${loading} onClick=${() => void loadOlder()}>Older</button>`
      }
    </div>
  </section>`;
}

function Thread({ id }: { id: string }) {
  const view = useView<SignalThreadView>(`signal:${id}`, () => api.signal(id), touches.signals);
  if (!view.data) return html`<div class="panel"><${ViewStatus} error=${view.error} /></div>`;
  const { signal, history, replies } = view.data;
  return html`<article class="panel thread" data-thread=${signal.id}>
    <header class="team-head">
      <h2>${signal.subject}</h2>
      <${StateBadge} state=${signal.state} />
      <a href="/signals" class="muted">close</a>
    </header>
    <dl class="kv">
      <dt>Type</dt>
      <dd>${signal.type}</dd>
      <dt>From → to</dt>
      <dd>${link(signal.from)} → ${link(signal.to)}</dd>
      <dt>Sent</dt>
      <dd>${formatTime(signal.sentAt)}</dd>
      <dt>Id</dt>
      <dd class="mono">${signal.id}</dd>
      ${
        signal.replyTo &&
        html`<dt>Replies to</dt>
          <dd><a class="mono" href=${signalHref(signal.replyTo)}>${signal.replyTo}</a></dd>`
      }
    </dl>
    <h3>Body</h3>
    <${Markdown} source=${signal.body} />
    <h3>Delivery</h3>
    <ol class="timeline">
      ${history.map(
        (step, index) =>
          html`<li key=${index}><time datetime=${step.at}>${formatTime(step.at)}</time>${step.what}</li>`,
      )}
    </ol>
    <h3>Replies</h3>
    <${SignalTable} signals=${replies} empty="No replies." />
  </article>`;
}

const link = (id: string) => (id === 'meta' ? 'meta' : html`<a href=${teamHref(id)}>${id}</a>`);
