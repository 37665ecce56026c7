import { html } from 'htm/preact';

/**
 * A lifecycle state, registry status or delivery state as a coloured badge. The colour says what kind of
 * state it is (working, waiting on a person, done, failed); the text says which.
 */
const TONES: Record<string, string> = {
  failed: 'bad',
  undeliverable: 'bad',
  expired: 'bad',
  paused: 'wait',
  'pr-review': 'wait',
  'pr-approved': 'wait',
  awaiting: 'wait',
  complete: 'done',
  merged: 'done',
  delivered: 'neutral',
  answered: 'done',
  acknowledged: 'done',
  read: 'neutral',
  active: 'ok',
  archived: 'muted',
  success: 'done',
  failure: 'bad',
  error: 'bad',
};

export function toneOf(state: string | null | undefined): string {
  if (!state) return 'muted';
  return TONES[state] ?? 'ok';
}

export function StateBadge({ state, title }: { state: string | null | undefined; title?: string }) {
  return html`<span class=${`badge tone-${toneOf(state)}`} title=${title}>${state ?? 'no lifecycle'}</span>`;
}
