/**
 * How a consultant's answer (a `report` signal) names the question it answers, until signals carry a
 * reply-to field of their own: the subject is `re: <question subject>` and the body's first line is
 * `In reply to question <question id>.` — one line a later reply-to record can replace, parsed here only.
 */
const REPLY_LINE = /^In reply to question ([0-9a-f-]{36})\.$/m;

export function answerSubject(questionSubject: string): string {
  return `re: ${questionSubject}`;
}

export function answerBody(questionId: string, text: string): string {
  return `In reply to question ${questionId}.\n\n${text}`;
}

/** The id of the question a report answers, when it says so. */
export function answeredQuestionId(body: string): string | undefined {
  return REPLY_LINE.exec(body.split('\n', 1)[0] ?? '')?.[1];
}
