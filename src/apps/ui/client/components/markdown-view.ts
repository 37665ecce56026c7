import { useMemo } from 'preact/hooks';
import { renderMarkdown } from '../markdown.js';

/** Markdown rendered safely (see markdown.ts), parsed again only when the text changes. */
export function Markdown({ source }: { source: string }) {
  return useMemo(() => renderMarkdown(source), [source]);
}
