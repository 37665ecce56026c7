import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { ActionRequest, UiAction } from '../../api-types.js';
import { postAction } from '../api.js';
import { refreshAll } from '../live.js';
import { newUuid } from '../uuid.js';

/**
 * The actions offered in place, as buttons named by their verbs (`Pause`, `Request changes`…). Answer and
 * Request changes open a textarea first; Archive and Remove, which cannot be undone, ask to confirm. fed's refusal is shown next to the
 * buttons, in its own words; a success refreshes every view.
 */
export const ACTION_LABELS: Record<UiAction, string> = {
  pause: 'Pause',
  resume: 'Resume',
  approve: 'Approve',
  'request-changes': 'Request changes',
  merge: 'Merge',
  retry: 'Retry',
  archive: 'Archive',
  remove: 'Remove',
  answer: 'Answer',
};

/** The actions that need words from the person: what the textarea is called. */
const TEXT_ACTIONS: Partial<Record<UiAction, string>> = {
  answer: 'Your answer',
  'request-changes': 'What to change',
};

/** The actions that cannot be undone: what the confirmation asks, of the team named. */
const CONFIRM_ACTIONS: Partial<Record<UiAction, (team: string) => string>> = {
  archive: (team) => `Archive ${team}? It is never launched again.`,
  remove: (team) => `Remove ${team} from the federation?`,
};

interface Props {
  actions: readonly UiAction[];
  team?: string | null;
  signalId?: string | null;
}

type Outcome = { ok: boolean; message: string } | null;

export function ActionButtons({ actions, team, signalId }: Props) {
  const [open, setOpen] = useState<UiAction | null>(null);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  // The answer's id, kept until it is sent: pressing Send again after a lost response sends it once.
  const [answerId, setAnswerId] = useState(newUuid);
  if (actions.length === 0) return null;

  const run = async (action: UiAction, words?: string) => {
    setBusy(true);
    setOutcome(null);
    const request: ActionRequest = { action };
    if (team) request.team = team;
    if (signalId) request.signalId = signalId;
    if (words !== undefined) request.text = words;
    if (action === 'answer') request.id = answerId;
    const result = await postAction(request);
    setBusy(false);
    setOutcome({ ok: result.ok, message: result.message });
    if (result.ok) {
      setOpen(null);
      setText('');
      if (action === 'answer') setAnswerId(newUuid());
      refreshAll();
    }
  };

  const press = (action: UiAction) => {
    setOutcome(null);
    if (TEXT_ACTIONS[action] || CONFIRM_ACTIONS[action]) setOpen(open === action ? null : action);
    else void run(action);
  };

  const submit = (event: Event) => {
    event.preventDefault();
    if (open && text.trim()) void run(open, text.trim());
  };

  const prompt = open ? TEXT_ACTIONS[open] : undefined;
  const confirm = open ? CONFIRM_ACTIONS[open] : undefined;
  return html`<div class="actions" onClick=${(event: Event) => event.stopPropagation()}>
    <div class="action-row">
      ${actions.map(
        (action) =>
          html`<button
            type="button"
            class=${`action action-${action}${open === action ? ' pressed' : ''}`}
            disabled=${busy}
            aria-expanded=${TEXT_ACTIONS[action] || CONFIRM_ACTIONS[action] ? open === action : undefined}
            onClick=${() => press(action)}
          >
            ${ACTION_LABELS[action]}
          </button>`,
      )}
    </div>
    ${
      confirm &&
      html`<div class="action-form">
        <span>${confirm(team ?? 'this team')}</span>
        <button type="button" class=${`action action-${open}`} disabled=${busy} onClick=${() => void run(open!)}>
          Confirm ${ACTION_LABELS[open!].toLowerCase()}
        </button>
        <button type="button" disabled=${busy} onClick=${() => setOpen(null)}>Cancel</button>
      </div>`
    }
    ${
      prompt &&
      html`<form class="action-form" onSubmit=${submit}>
        <textarea
          aria-label=${prompt}
          placeholder=${prompt}
          rows="3"
          value=${text}
          onInput=${(event: Event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
        ></textarea>
        <div class="action-row">
          <button type="submit" class="primary" disabled=${busy || !text.trim()}>Send</button>
          <button type="button" disabled=${busy} onClick=${() => setOpen(null)}>Cancel</button>
        </div>
      </form>`
    }
    ${
      outcome &&
      html`<p class=${outcome.ok ? 'action-done' : 'refusal'} role=${outcome.ok ? 'status' : 'alert'}>
        ${outcome.message}
      </p>`
    }
  </div>`;
}
