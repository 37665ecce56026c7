import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptChunk } from '../../api-types.js';
import { api } from '../api.js';
import { subscribe } from '../live.js';

/** What the page keeps of a long transcript: its end. */
const KEEP_CHARS = 200_000;

/**
 * The transcript of the team's running (or last) agent, growing as the agent writes: from where the team
 * page's read ended, the page asks `/api/teams/<id>/transcript?from=` for what came after whenever the live
 * feed says the team's runs changed (a transcript written is such a change), until the run ends — no timer,
 * so an open page costs the server nothing while the agent is quiet. Scrolled to the end, it stays at the
 * end; scrolled up, it stays put.
 */
export function TranscriptTail({ team, initial }: { team: string; initial: TranscriptChunk }) {
  const [text, setText] = useState(initial.text);
  const [ended, setEnded] = useState(initial.ended);
  const [error, setError] = useState<string | null>(null);
  const box = useRef<HTMLPreElement>(null);
  const atEnd = useRef(true);

  useEffect(() => {
    if (initial.ended) return;
    let next = initial.next;
    let stopped = false;
    // One read at a time; a change heard during a read asks for one more after it.
    let reading = false;
    let again = false;
    const read = async () => {
      if (reading) return void (again = true);
      reading = true;
      try {
        const chunk = await api.transcript(team, next);
        if (stopped) return;
        // Another run started: its transcript replaces this one (the team page reloads with it).
        if (chunk.runId !== initial.runId) return stop();
        next = chunk.next;
        if (chunk.text) setText((previous) => (previous + chunk.text).slice(-KEEP_CHARS));
        setError(null);
        if (chunk.ended) {
          setEnded(true);
          return stop();
        }
      } catch (failure) {
        if (!stopped) setError(failure instanceof Error ? failure.message : String(failure));
      } finally {
        reading = false;
      }
      if (again && !stopped) {
        again = false;
        void read();
      }
    };
    const unsubscribe = subscribe({
      touches: (change) => change.scope === 'team' && change.team === team && change.what === 'runs',
      refresh: () => void read(),
    });
    const stop = () => {
      stopped = true;
      unsubscribe();
    };
    // What the agent wrote between the team page's read and this subscription.
    void read();
    return stop;
    // Started once per run (the team page keys this component by run): later reads of the team page
    // bring the same transcript, which this tail already has.
  }, [team, initial.runId]);

  useLayoutEffect(() => {
    const element = box.current;
    if (element && atEnd.current) element.scrollTop = element.scrollHeight;
  }, [text]);

  const onScroll = () => {
    const element = box.current;
    if (element) atEnd.current = element.scrollHeight - element.scrollTop - element.clientHeight < 24;
  };

  return html`<div class="transcript-wrap">
    <p class="muted">
      Run <code>${initial.runId}</code> · ${ended ? 'ended' : html`<span class="tailing">live</span>`}
      ${error && html` · <span class="bad">${error}</span>`}
    </p>
    <pre class="transcript" ref=${box} onScroll=${onScroll} tabindex="0" aria-label="Transcript">
${text || '(empty so far)'}</pre>
  </div>`;
}
