import { z } from 'zod';

/**
 * What an event of a lifecycle means to the people and agents that send it, attached to its zod schema so
 * it is written once: the launch prompt's progress lines, `fed event` help and the tables of docs/lifecycles.md are all
 * read off these. Only the archetype's own events carry docs; the shared ones (FAIL, PAUSE, …) are
 * described once where they are used.
 */
export interface EventDoc {
  /** The transition and what it reports, e.g. "implementing → testing: a commit is ready to be tested". */
  summary: string;
  /** Who sends it: the team's agent (`fed event`), meta (a `fed team` command), or fed itself from a signal. */
  sentBy: 'agent' | 'meta' | 'signal';
  /** A payload that would be accepted, without `type` (shown as `--data`); omitted when there is none. */
  example?: Record<string, unknown>;
  /** What its guard needs, said when the state has the event but refuses it (how to fix the call). */
  needs?: string;
}

/** The `needs` of an event allowed only once a mission is applied: the usual case is a mission not applied yet. */
export const NEEDS_MISSION =
  'no mission has been applied yet: a mission directive (fed signal send --to <team> --type directive --subject <mission>) is applied ' +
  'by the team actor — run fed actors run --team <team> --once, or fed launch --team <team>';

export const eventDocs = z.registry<EventDoc>();

/** The docs of every event of a discriminated union that has them, in schema order. */
export function documentedEvents(schema: { options: readonly z.ZodType[] }): { type: string; doc: EventDoc }[] {
  return schema.options.flatMap((option) => {
    const doc = eventDocs.get(option);
    const type = (option as unknown as { shape: { type: { value: string } } }).shape.type.value;
    return doc ? [{ type, doc }] : [];
  });
}
