import { html } from 'htm/preact';
import type { JournalEntryView, RunView, TeamPageView } from '../../api-types.js';
import { api } from '../api.js';
import { ActionButtons } from '../components/action-buttons.js';
import { LifecycleDiagram } from '../components/lifecycle-diagram.js';
import { Markdown } from '../components/markdown-view.js';
import { SignalTable } from '../components/signal-table.js';
import { StateBadge } from '../components/state-badge.js';
import { TranscriptTail } from '../components/transcript-tail.js';
import { ViewStatus } from '../components/view-status.js';
import { formatCost, formatCount, formatDuration, formatRelative, formatTime } from '../format.js';
import { touches, useView } from '../use-view.js';

/** One team: where it is in its lifecycle, what happened, what it cost, what it said and was told. */
export function TeamPage({ team }: { team: string }) {
  const view = useView<TeamPageView>(`team:${team}`, () => api.team(team), touches.team(team));
  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  const { card, machineId, journal, runs, transcript, deliverable, inbox, outbox } = view.data;
  return html`<section class="view team-page" data-team-page=${card.id}>
    <header class="team-head">
      <h1>${card.id}</h1>
      <${StateBadge} state=${card.state} />
      <${StateBadge} state=${card.status} />
      <span class="muted">${card.archetype} · ${card.domain}</span>
    </header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    ${card.mission && html`<p class="mission">${card.mission}</p>`}
    <div class="team-top">
      ${
        machineId &&
        html`<div class="panel diagram-panel">
          <h2>Lifecycle <span class="muted">${machineId}</span></h2>
          <${LifecycleDiagram} machineId=${machineId} current=${card.state} />
        </div>`
      }
      <div class="team-side">
        <div class="panel">
          <dl class="kv">
            <dt>In state since</dt>
            <dd title=${card.since ?? ''}>
              ${card.since ? `${formatTime(card.since)} (${formatRelative(card.since)})` : '—'}
            </dd>
            <dt>Cost so far</dt>
            <dd>${formatCost(card.costUsd)}</dd>
            <dt>Inbox</dt>
            <dd>${card.inbox.total} (${card.inbox.unacknowledged} not acknowledged)</dd>
            <dt>Health</dt>
            <dd>${card.healthy ? html`<span class="health ok">healthy</span>` : card.reasons.join('; ')}</dd>
            ${
              card.lastRun?.resumeAt &&
              html`<dt>Resumes</dt>
                <dd>${formatTime(card.lastRun.resumeAt)} (${formatRelative(card.lastRun.resumeAt)})</dd>`
            }
            ${
              card.networkOpen &&
              html`<dt>Network</dt>
                <dd class="unsandboxed" title="agent.network is open for this team">
                  open: its agent can reach any host
                </dd>`
            }
            ${
              card.lastRun?.network &&
              html`<dt>Last run's network</dt>
                <dd>${card.lastRun.network}</dd>`
            }
          </dl>
          <${ActionButtons} actions=${card.actions} team=${card.id} />
        </div>
        <div class="panel">
          <h2>Journal <span class="muted">newest first</span></h2>
          <${Timeline} entries=${journal} />
        </div>
      </div>
    </div>

    <div class="panel">
      <h2>Transcript</h2>
      ${
        transcript
          ? html`<${TranscriptTail} key=${transcript.runId} team=${card.id} initial=${transcript} />`
          : html`<p class="empty">No agent has run for this team yet.</p>`
      }
    </div>

    <div class="panel">
      <h2>Runs</h2>
      <${RunsTable} runs=${runs} />
    </div>

    <div class="team-grid">
      <div class="panel">
        <h2>Inbox</h2>
        <${SignalTable} signals=${inbox} empty="Nothing received." />
      </div>
      <div class="panel">
        <h2>Outbox</h2>
        <${SignalTable} signals=${outbox} empty="Nothing sent." />
      </div>
    </div>
    <div class="panel">
      <h2>Deliverable ${deliverable && html`<span class="muted mono">${deliverable.path}</span>`}</h2>
      ${
        !deliverable
          ? html`<p class="empty">This team has no deliverable.</p>`
          : deliverable.markdown === null
            ? html`<p class="empty">Not written yet (${deliverable.sizeBytes} bytes).</p>`
            : deliverable.notRendered
              ? html`<p class="empty">Shown as text, not rendered: ${deliverable.notRendered}.</p>
                  <pre class="deliverable-text">${deliverable.markdown}</pre>`
              : html`<${Markdown} source=${deliverable.markdown} />`
      }
    </div>
  </section>`;
}

function Timeline({ entries }: { entries: readonly JournalEntryView[] }) {
  if (entries.length === 0) return html`<p class="empty">Nothing recorded yet.</p>`;
  return html`<ol class="timeline" reversed>
    ${[...entries].reverse().map(
      (entry, index) =>
        html`<li key=${index} class=${entry.origin}>
          <time datetime=${entry.at} title=${entry.at}>${formatTime(entry.at)}</time>
          ${entry.to && html`<${StateBadge} state=${entry.to} /> `}${entry.text}
        </li>`,
    )}
  </ol>`;
}

function RunsTable({ runs }: { runs: readonly RunView[] }) {
  if (runs.length === 0) return html`<p class="empty">No runs yet.</p>`;
  const tokens = (run: RunView) =>
    run.tokens.input === null && run.tokens.output === null
      ? '—'
      : `${formatCount(run.tokens.input)} in · ${formatCount(run.tokens.output)} out`;
  return html`<table class="runs-table">
    <thead>
      <tr>
        <th>Started</th>
        <th>Outcome</th>
        <th class="num">Turns</th>
        <th class="num">Tokens</th>
        <th class="num">Cost</th>
        <th class="num">Duration</th>
        <th>Preset · model</th>
        <th>Session</th>
      </tr>
    </thead>
    <tbody>
      ${runs.map(
        (run) =>
          html`<tr key=${run.runId} data-run=${run.runId}>
            <td title=${run.startedAt}>${formatTime(run.startedAt)}</td>
            <td><${StateBadge} state=${run.outcome} title=${run.reason ?? undefined} /></td>
            <td class="num">${formatCount(run.turns)}</td>
            <td class="num">${tokens(run)}</td>
            <td class="num">${formatCost(run.costUsd)}</td>
            <td class="num">${formatDuration(run.durationMs)}</td>
            <td>
              ${run.preset}${run.model ? html` · <span class="muted">${run.model}</span>` : ''}
              ${
                !run.sandboxed
                  ? html`<div class="unsandboxed" title="Nothing stood between this agent and your files">
                      not sandboxed: ran as you, with your home, credentials and network
                    </div>`
                  : run.sandboxAllows.length
                    ? html`<div class="unsandboxed" title="What this team's sandbox setting gives up">
                        sandbox allows ${run.sandboxAllows.join(', ')}
                      </div>`
                    : ''
              }
            </td>
            <td class="mono">${run.sessionId ?? '—'}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
