import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { DispatchState, ScheduleRow, SteeringView } from '../../api-types.js';
import { api, postJson } from '../api.js';
import { Field, SteeringForm } from '../components/steering-form.js';
import { ViewStatus } from '../components/view-status.js';
import { formatRelative, formatTime } from '../format.js';
import { refreshAll } from '../live.js';
import { teamHref } from '../pages.js';
import { newUuid } from '../uuid.js';
import { touches, useView } from '../use-view.js';

/**
 * Steering the fleet from one page: what `fed serve` dispatches and queues here, a team onboarded with its
 * mission, a directive to any team, and the schedules. Each form is the CLI's operation (the server's
 * steering.ts). Read again on every change: a dispatch or an ending changes a team's files.
 */
export function Steer() {
  const view = useView<SteeringView>('steering', api.steering, touches.steering);
  if (!view.data) return html`<${ViewStatus} error=${view.error} />`;
  const { dispatch, schedules, schedulesError, teams, archetypes, defaultArchetype, placements, presets } = view.data;
  return html`<section class="view steer">
    <header class="view-head"><h1>Steer</h1></header>
    ${view.error && html`<${ViewStatus} error=${view.error} />`}
    <${DispatchPanel} dispatch=${dispatch} />
    <div class="team-grid">
      <div class="panel">
        <h2>Onboard a team</h2>
        <${SteeringForm} route="/api/teams" label="Onboard a team" submit="Onboard and send the mission">
          <${Field} label="Team"><input name="team" required placeholder="api-docs" autocomplete="off" /><//>
          <${Field} label="Archetype">
            <select name="archetype">
              ${archetypes.map((id) => html`<option value=${id} selected=${id === defaultArchetype}>${id}</option>`)}
            </select>
          <//>
          <${Field} label="Placement">
            <select name="placement">
              ${placements.map((id) => html`<option value=${id}>${id}</option>`)}
            </select>
          <//>
          <${Field} label="Area" hint="a folder of the codebase; the mission defaults to documenting it">
            <input name="area" placeholder="src/api" autocomplete="off" />
          <//>
          <${Field} label="Mission"><input name="subject" placeholder="Document the public API" /><//>
          <${Field} label="Details"><textarea name="body" rows="3" placeholder="What the team should do"></textarea><//>
          <${AgentFields} presets=${presets} />
        <//>
      </div>
      <div class="panel">
        <h2>Send a directive</h2>
        <${DirectiveForm} teams=${teams} />
      </div>
    </div>
    <${SchedulesPanel} schedules=${schedules} error=${schedulesError} teams=${teams} />
  </section>`;
}

/**
 * The team's own agent and limits (`fed team onboard --agent --preset --model --max-*`): each left empty is
 * the federation's, as `fed team show` then says.
 */
function AgentFields({ presets }: { presets: string[] }) {
  return html`<fieldset class="agent-fields">
    <legend>Its agent and limits <span class="muted">(empty: the federation's)</span></legend>
    <${Field} label="Agent preset">
      <select name="preset">
        <option value="">from the command</option>
        ${presets.map((id) => html`<option value=${id}>${id}</option>`)}
      </select>
    <//>
    <${Field} label="Agent command" hint="instead of agentCommand, like claude or /opt/bin/codex">
      <input name="agent" placeholder="claude" autocomplete="off" />
    <//>
    <${Field} label="Model"><input name="model" autocomplete="off" /><//>
    <${Field} label="Max turns"><input name="maxTurns" type="number" min="1" step="1" /><//>
    <${Field} label="Max cost (USD)"><input name="maxCostUsd" type="number" min="0" step="any" /><//>
    <${Field} label="Max minutes"><input name="maxMinutes" type="number" min="0" step="any" /><//>
  </fieldset>`;
}

const WORK_WORDS: Record<DispatchState['running'][number]['work'], string> = {
  mission: 'its mission',
  directive: 'a directive',
  'new-mission': 'a new mission',
  resume: 'a resume',
  owed: 'the work it owes',
};

function DispatchPanel({ dispatch }: { dispatch: DispatchState | null }) {
  if (!dispatch)
    return html`<div class="panel dispatch">
      <h2>Dispatch</h2>
      <p class="empty">
        No server dispatches here: this is <code>fed ui</code>. Run <code>fed serve --ui</code> to have teams with work
        launched, and see them here.
      </p>
    </div>`;
  const { running, queued, capacity } = dispatch;
  return html`<div class="panel dispatch">
    <h2>Dispatch <span class="muted">${running.length} of ${capacity} running, ${queued.length} queued</span></h2>
    ${
      running.length + queued.length === 0
        ? html`<p class="empty">No team has work: nothing runs or waits.</p>`
        : html`<table class="dispatch-table">
            <thead>
              <tr>
                <th>Team</th>
                <th>Now</th>
                <th>For</th>
                <th>Since</th>
              </tr>
            </thead>
            <tbody>
              ${running.map(
                (row) =>
                  html`<tr key=${row.team} data-team=${row.team} data-dispatch="running">
                    <td><a href=${teamHref(row.team)}>${row.team}</a></td>
                    <td>running</td>
                    <td>${WORK_WORDS[row.work]}${row.subject && html` <q>${row.subject}</q>`}</td>
                    <td title=${formatTime(row.since)}>${formatRelative(row.since)}</td>
                  </tr>`,
              )}
              ${queued.map(
                (row) =>
                  html`<tr key=${row.team} data-team=${row.team} data-dispatch=${row.waitsFor}>
                    <td><a href=${teamHref(row.team)}>${row.team}</a></td>
                    <td>waits ${row.why}${row.until && html` (${formatTime(row.until)})`}</td>
                    <td>${WORK_WORDS[row.work]}${row.subject && html` <q>${row.subject}</q>`}</td>
                    <td title=${formatTime(row.since)}>${formatRelative(row.since)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </div>`;
}

function DirectiveForm({ teams }: { teams: string[] }) {
  // The directive's id, kept until it is sent: pressing Send again after a lost response sends it once.
  const [id, setId] = useState(newUuid);
  if (teams.length === 0) return html`<p class="empty">No team yet: onboard one first.</p>`;
  return html`<${SteeringForm}
    route="/api/directives"
    label="Send a directive"
    submit="Send"
    extra=${() => ({ id })}
    onDone=${() => setId(newUuid())}
  >
    <${Field} label="To">
      <select name="to">
        ${teams.map((team) => html`<option value=${team}>${team}</option>`)}
      </select>
    <//>
    <${Field} label="Subject"><input name="subject" required placeholder="Cover the error codes too" /><//>
    <${Field} label="Body"><textarea name="body" rows="3"></textarea><//>
  <//>`;
}

function SchedulesPanel({
  schedules,
  error,
  teams,
}: {
  schedules: ScheduleRow[];
  error: string | null;
  teams: string[];
}) {
  return html`<div class="panel schedules">
    <h2>
      Schedules <span class="muted">directives <code>fed serve</code> sends by itself</span>
    </h2>
    ${error && html`<p class="refusal" role="alert">${error}</p>`}
    ${
      schedules.length === 0
        ? html`<p class="empty">No schedules.</p>`
        : html`<table class="schedules-table">
            <thead>
              <tr>
                <th>Id</th>
                <th>To</th>
                <th>Trigger</th>
                <th>Next</th>
                <th>Last fired</th>
                <th>Subject</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${schedules.map((row) => html`<${ScheduleLine} key=${row.id} row=${row} />`)}
            </tbody>
          </table>`
    }
    ${
      teams.length > 0 &&
      html`<h3>Add a schedule</h3>
        <${SteeringForm} route="/api/schedules" label="Add a schedule" submit="Add">
          <${Field} label="To">
            <select name="to">
              ${teams.map((team) => html`<option value=${team}>${team}</option>`)}
            </select>
          <//>
          <${Field} label="Subject"><input name="subject" required placeholder="Refresh the architecture docs" /><//>
          <${Field} label="Cron" hint="minute hour day month weekday, like 0 3 * * 1-5">
            <input name="cron" placeholder="0 3 * * 1-5" autocomplete="off" />
          <//>
          <${Field} label="Time zone" hint="for the cron expression, like Europe/Paris">
            <input name="timezone" autocomplete="off" />
          <//>
          <${Field} label="Or when this git ref moves"><input name="onRef" placeholder="main" autocomplete="off" /><//>
          <${Field} label="Id" hint="default: a slug of the subject"><input name="id" autocomplete="off" /><//>
          <${Field} label="Body"><textarea name="body" rows="2"></textarea><//>
        <//>`
    }
  </div>`;
}

function ScheduleLine({ row }: { row: ScheduleRow }) {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const remove = async () => {
    setBusy(true);
    setRefusal(null);
    const result = await postJson('/api/schedules/remove', { id: row.id });
    setBusy(false);
    if (result.ok) refreshAll();
    else setRefusal(result.message);
  };
  return html`<tr data-schedule=${row.id}>
    <td class="mono">${row.id}</td>
    <td><a href=${teamHref(row.to)}>${row.to}</a></td>
    <td>${row.trigger}</td>
    <td>${row.next}</td>
    <td>${row.lastFired ? formatTime(row.lastFired) : 'never'}</td>
    <td>${row.subject}</td>
    <td>
      <button type="button" class="action action-remove" disabled=${busy} onClick=${() => void remove()}>Remove</button>
      ${refusal && html`<p class="refusal" role="alert">${refusal}</p>`}
    </td>
  </tr>`;
}
