import { html } from 'htm/preact';
import type { FederationView } from '../../api-types.js';
import { api } from '../api.js';
import { Markdown } from '../components/markdown-view.js';
import { PlanPanel } from '../components/plan-panel.js';
import { ViewStatus } from '../components/view-status.js';
import { formatCost, formatTime } from '../format.js';
import { touches, useView } from '../use-view.js';

/** The federation as a whole: health, run totals, telemetry, hosts (JetStream), the plan (applied, or proposed to apply) and the report. */
export function FederationPage() {
  const view = useView<FederationView>('federation', api.federation, touches.federation);
  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  const { plan, planError, report, health, telemetry, runs, hosts } = view.data;
  return html`<section class="view federation">
    <header class="view-head"><h1>Federation</h1></header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    <div class="team-grid">
      <div class="panel">
        <h2>Health</h2>
        <dl class="kv">
          <dt>Teams</dt>
          <dd>${health.teams}</dd>
          <dt>Healthy</dt>
          <dd>${health.healthy}</dd>
          <dt>Unhealthy</dt>
          <dd class=${health.unhealthy ? 'bad' : ''}>${health.unhealthy}</dd>
          <dt>Stuck signals</dt>
          <dd class=${health.stuckSignals ? 'bad' : ''}>${health.stuckSignals}</dd>
        </dl>
        ${
          health.problems.length > 0 &&
          html`<h3>Problems</h3>
            <ul class="problems">
              ${health.problems.map((problem) => html`<li>${problem}</li>`)}
            </ul>`
        }
      </div>
      <div class="panel">
        <h2>Runs</h2>
        <dl class="kv">
          <dt>Runs</dt>
          <dd>${runs.total}</dd>
          <dt>Cost</dt>
          <dd>${formatCost(runs.costUsd)}</dd>
          <dt>Unmeasured</dt>
          <dd>${runs.unmeasured} ${runs.unmeasured ? html`<span class="muted">(no cost reported)</span>` : ''}</dd>
        </dl>
        <h2>Telemetry</h2>
        <dl class="kv">
          <dt>Enabled</dt>
          <dd>${telemetry.enabled ? 'yes' : 'no'}</dd>
          <dt>Collector</dt>
          <dd>${telemetry.collector}</dd>
          <dt>URL</dt>
          <dd class="mono">${telemetry.url ?? '—'}</dd>
          <dt>Since</dt>
          <dd>${formatTime(telemetry.since)}</dd>
          ${
            telemetry.error &&
            html`<dt>Error</dt>
              <dd class="bad">${telemetry.error}</dd>`
          }
        </dl>
      </div>
    </div>
    ${
      hosts.shared &&
      html`<div class="panel">
        <h2>Hosts</h2>
        ${
          hosts.list.length === 0
            ? html`<p class="empty">No host has served the federation yet: <code>fed serve</code> announces one.</p>`
            : html`<ul class="hosts">
                ${hosts.list.map(
                  (host) =>
                    html`<li>
                      <strong>${host.name}</strong>
                      <span class=${host.state === 'lost' ? 'bad' : host.state === 'alive' ? '' : 'muted'}>
                        ${host.state === 'lost' ? 'host lost' : host.state}</span
                      >
                      — heard ${formatTime(host.heardAt)}, ${host.running.length}/${host.capacity} running, teams:
                      ${host.teams.join(', ') || 'none'}
                      <span class="muted">(fed ${host.version})</span>
                    </li>`,
                )}
              </ul>`
        }
      </div>`
    }
    <${PlanPanel} applied=${plan} error=${planError} />
    <div class="panel">
      <h2>Report ${report && html`<span class="muted mono">${report.path}</span>`}</h2>
      ${report ? html`<${Markdown} source=${report.markdown} />` : html`<p class="empty">No federation report yet.</p>`}
    </div>
  </section>`;
}
