import { z } from 'zod';
import { builtOnFirstUse, isoTimestamp, nonEmptyString, teamIdSchema } from './common.js';

/**
 * What waits on a person (the "needs you" items): a coding team in review, a paused or failed team, a
 * question to meta not answered yet, an escalation, a team whose host was lost (JetStream). Each is told once (`notify`, the `onNeedsYou` hook,
 * the chat channel); what was told is kept in `<root>/.fed/notify/`, one small file per item and channel.
 */
export const NOTIFY_DIR = 'notify';

export const NEEDS_YOU_KINDS = ['review', 'paused', 'failed', 'question', 'escalation', 'host-lost'] as const;
export type NeedsYouKind = (typeof NEEDS_YOU_KINDS)[number];

/** The channels an item is told through, each at most once. */
export const NOTIFY_CHANNELS = ['command', 'hook', 'chat'] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/**
 * One item, as the `notify.command` gets it on stdin and the `onNeedsYou` hook as its argument. `id` is
 * stable for one occurrence and new for the next (`failed:<team>:<since>`, `question:<signal id>`), so
 * a team that fails again after a retry is told again, and the same failure never twice.
 */
export const needsYouItemSchema = builtOnFirstUse(() =>
  z
    .strictObject({
      id: nonEmptyString,
      kind: z.enum(NEEDS_YOU_KINDS),
      /** The team it is about; null for an escalation fed raised itself about meta's own signals. */
      team: teamIdSchema.nullable(),
      /** When it started waiting (the team entered its state, the signal was sent). */
      since: isoTimestamp,
      /** One line, at most SUMMARY_MAX characters. */
      summary: nonEmptyString,
      /** What resolves it, as commands to run. */
      action: nonEmptyString,
      /** The signal it is about (question, escalation). */
      signalId: z.string().nullable(),
      /** A paused team that resumes by itself at this time (`fed run` waits for it). */
      resumeAt: isoTimestamp.nullable(),
    })
    .meta({
      title: 'NeedsYouItem',
      description: 'Something waiting on a person, as the notify command receives it on stdin',
    }),
);
export type NeedsYouItem = z.infer<typeof needsYouItemSchema>;

/** A summary is one line: longer text is cut here, the whole of it is one command away (`action`). */
export const SUMMARY_MAX = 200;

/** `<root>/.fed/notify/<item>.<channel>.json`: the item was told through the channel, at `sentAt`. Never rewritten. */
export const notifiedSchema = builtOnFirstUse(() =>
  z.strictObject({
    id: nonEmptyString,
    channel: z.enum(NOTIFY_CHANNELS),
    sentAt: isoTimestamp,
  }),
);
export type Notified = z.infer<typeof notifiedSchema>;
