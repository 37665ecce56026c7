import { readAnalysedText, type Survey } from 'fed/survey';
import { join } from 'node:path';

/** The code example of the document: the opening lines of the first readable entry point (docs/design/spec.md §3.1 "distilling"). */
export interface Excerpt {
  path: string;
  /** Markdown fence tag of its language. */
  language: string;
  text: string;
  shownLines: number;
  totalLines: number;
}

const EXCERPT_LINES = 25;

export function selectExcerpt(survey: Survey): Excerpt | null {
  const byPath = new Map(survey.files.map((f) => [f.path, f]));
  for (const entry of survey.entryPoints) {
    const file = byPath.get(entry.path);
    if (!file?.analysed || !file.language) continue;
    const text = readAnalysedText(join(survey.codebase, file.path));
    if (text === undefined) continue; // changed since the scan; try the next entry point
    const lines = text.split('\n').slice(0, EXCERPT_LINES);
    while (lines.length && lines[lines.length - 1]!.trim() === '') lines.pop();
    if (lines.length === 0) continue;
    return {
      path: file.path,
      language: file.language.fence,
      text: lines.join('\n'),
      shownLines: lines.length,
      totalLines: file.lines,
    };
  }
  return null;
}
