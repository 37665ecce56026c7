/**
 * TODO-style markers in comments: a text scan (the survey reads thousands of files in a fraction of a
 * second); what a file imports is read by import-scan.ts.
 */
export interface TodoMarker {
  line: number;
  tag: string;
  /** The marker and what follows it on its line, shortened. */
  text: string;
}

const TODO_TAGS = ['TODO', 'FIXME', 'HACK', 'XXX'] as const;
const COMMENT_OPENERS = ['//', '#', '/*', '*', '<!--', '--', ';'];

const isWordChar = (char: string | undefined) => char !== undefined && /\w/.test(char);

/**
 * A marker counts when it is the first word of a comment — right after a `//`, `#`, `*` or other opener
 * that starts the line or follows a space — so identifiers such as `TODO_TAGS`, prose that merely
 * mentions TODOs, and strings such as `'// TODO'` do not.
 */
function markerIn(line: string): { tag: string; index: number } | undefined {
  for (const tag of TODO_TAGS) {
    const index = line.indexOf(tag);
    if (index === -1 || isWordChar(line[index - 1]) || isWordChar(line[index + tag.length])) continue;
    const before = line.slice(0, index).trimEnd();
    const opener = COMMENT_OPENERS.find((o) => before.endsWith(o));
    const preceding = opener === undefined ? undefined : before[before.length - opener.length - 1];
    if (opener !== undefined && (preceding === undefined || preceding === ' ' || preceding === '\t'))
      return { tag, index };
  }
  return undefined;
}

export function findTodoMarkers(text: string): TodoMarker[] {
  if (!TODO_TAGS.some((tag) => text.includes(tag))) return [];
  const found: TodoMarker[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const marker = markerIn(line);
    if (!marker) continue;
    const rest = line
      .slice(marker.index)
      .replace(/\s*(\*\/|-->)\s*$/, '')
      .trim();
    found.push({ line: i + 1, tag: marker.tag, text: rest.length > 100 ? `${rest.slice(0, 97)}...` : rest });
  }
  return found;
}
