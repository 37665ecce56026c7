import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { postJson, type PostRoute } from '../api.js';
import { refreshAll } from '../live.js';

type Outcome = { ok: boolean; message: string } | null;

/**
 * A steering form: its named fields posted as JSON to `route` (a field left empty is left out, a
 * `type=number` one is sent as a number), fed's refusal shown under it in its own words, and, on success,
 * what fed said, the form cleared and every view read again.
 */
export function SteeringForm({
  route,
  label,
  submit,
  extra,
  onDone,
  children,
}: {
  route: PostRoute;
  /** The form's accessible name (tests and screen readers find it by it). */
  label: string;
  submit: string;
  /** Fields the form adds to what the person typed (a directive's id). */
  extra?: () => Record<string, unknown>;
  /** Told once fed took the request. */
  onDone?: () => void;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const onSubmit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setBusy(true);
    setOutcome(null);
    const result = await postJson(route, { ...fieldsOf(form), ...extra?.() });
    setBusy(false);
    setOutcome({ ok: result.ok, message: result.message });
    if (result.ok) {
      form.reset();
      onDone?.();
      refreshAll();
    }
  };
  return html`<form class="steer-form" aria-label=${label} onSubmit=${onSubmit}>
    ${children}
    <div class="action-row">
      <button type="submit" class="primary" disabled=${busy}>${submit}</button>
    </div>
    ${
      outcome &&
      html`<p class=${outcome.ok ? 'action-done' : 'refusal'} role=${outcome.ok ? 'status' : 'alert'}>
        ${outcome.message}
      </p>`
    }
  </form>`;
}

function fieldsOf(form: HTMLFormElement): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const element of Array.from(form.elements)) {
    const field = element as HTMLInputElement;
    if (!field.name || field.value.trim() === '') continue;
    fields[field.name] = field.type === 'number' ? Number(field.value) : field.value.trim();
  }
  return fields;
}

/** A labelled field of a steering form; its hint is beside the label, not in the field's name. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  return html`<div class="field">
    <label><span class="field-label">${label}</span>${children}</label>
    ${hint && html`<span class="field-hint">${hint}</span>`}
  </div>`;
}
