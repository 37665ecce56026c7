import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { TranscriptChunk } from '../../api-types.js';
import { api } from '../api.js';

/** How often a running agent's transcript is asked for more, while its page is open. */
const TAIL_MS = 1500;
/** What the page keeps of a long transcript: its end. */
const KEEP_CHARS = 200_000;

/**
 * The transcript of the team's running (or last) agent, growing as the agent writes: from where the team
 * page's read ended, the page asks `/api/teams/<id>/transcript?from=` for what came after, until the run
 * ends. Scrolled to the end, it stays at the end; scrolled up, it stays put.
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
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const chunk = await api.transcript(team, next);
        if (stopped) return;
        // Another run started: its transcript replaces this one (the team page reloads with it).
        if (chunk.runId !== initial.runId) return;
        next = chunk.next;
        if (chunk.text) setText((previous) => (previous + chunk.text).slice(-KEEP_CHARS));
        setError(null);
        if (chunk.ended) return setEnded(true);
      } catch (failure) {
        if (stopped) return;
        setError(failure instanceof Error ? failure.message : String(failure));
      }
      timer = setTimeout(poll, TAIL_MS);
    };
    timer = setTimeout(poll, TAIL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
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
