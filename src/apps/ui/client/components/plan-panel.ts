import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { AppliedPlan, FederationPlan } from '../../api-types.js';
import { api } from '../api.js';
import { formatTime } from '../format.js';
import { teamHref } from '../pages.js';
import { Field, SteeringForm } from './steering-form.js';

/**
 * The plan: the one `fed plan --apply` last applied, as a table (or why its file cannot be read), and the
 * plan proposed for the codebase now (read on demand: it surveys every file), with Apply — what
 * `fed plan --teams n --apply` does.
 */
export function PlanPanel({ applied, error }: { applied: AppliedPlan | null; error: string | null }) {
  const [teams, setTeams] = useState(5);
  const [proposal, setProposal] = useState<{ plan?: FederationPlan; error?: string; busy?: boolean }>({});
  const propose = async (event: Event) => {
    event.preventDefault();
    setProposal({ busy: true });
    await api.plan(teams).then(
      (view) => setProposal({ plan: view.plan }),
      (error: unknown) => setProposal({ error: error instanceof Error ? error.message : String(error) }),
    );
  };
  return html`<div class="panel plan">
    <h2>Plan</h2>
    <div class="applied-plan">
      ${
        error !== null
          ? html`<p class="refusal" role="alert">${error}</p>`
          : applied === null
            ? html`<p class="empty">No plan applied yet: propose one below, then apply it.</p>`
            : html`<p class="muted">Applied ${formatTime(applied.appliedAt)} to ${applied.project}</p>
                <${PlanTable} plan=${applied} label="The applied plan" />`
      }
    </div>
    <h3>Propose a plan</h3>
    <form class="steer-form inline" aria-label="Propose a plan" onSubmit=${propose}>
      <${Field} label="Teams (at most)">
        <input
          type="number"
          min="1"
          max="1000"
          value=${teams}
          onInput=${(event: Event) => setTeams(Number((event.currentTarget as HTMLInputElement).value) || 1)}
        />
      <//>
      <button type="submit" disabled=${proposal.busy}>Propose</button>
    </form>
    ${proposal.error && html`<p class="refusal" role="alert">${proposal.error}</p>`}
    ${
      proposal.plan &&
      html`<p class="muted">
          ${proposal.plan.project}, split by ${proposal.plan.basis === 'packages' ? 'its packages' : 'its folders'}
        </p>
        <${PlanTable} plan=${proposal.plan} label="The proposed plan" />
        <${SteeringForm}
          route="/api/plan/apply"
          label="Apply the plan"
          submit="Apply: onboard these teams and send their missions"
          extra=${() => ({ teams })}
        ><//>`
    }
  </div>`;
}

function PlanTable({ plan, label }: { plan: FederationPlan; label: string }) {
  return html`<table class="plan-table" aria-label=${label}>
    <thead>
      <tr>
        <th>Team</th>
        <th>Areas</th>
        <th class="num">Files</th>
        <th class="num">Lines</th>
        <th>Mission</th>
      </tr>
    </thead>
    <tbody>
      ${plan.teams.map(
        (team) =>
          html`<tr key=${team.team} data-team=${team.team}>
            <td><a href=${teamHref(team.team)}>${team.team}</a></td>
            <td class="mono">${team.areas.map((area) => area.path).join(', ')}</td>
            <td class="num">${team.files}</td>
            <td class="num">${team.lines}</td>
            <td title=${team.mission.body}>${team.mission.subject}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
