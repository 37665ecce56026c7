/**
 * The subject of a consultant's answer (a `report` signal): `re: <question subject>`, so a person reading
 * an inbox sees which question it answers. The record that it answers the question is `--reply-to`
 * (src/engine/delivery): `fed signal show <question>` then says `answered` and by which report.
 */
export function answerSubject(questionSubject: string): string {
  return `re: ${questionSubject}`;
}
