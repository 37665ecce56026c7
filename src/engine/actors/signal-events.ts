import type { LifecycleSnapshot } from '../../../machines/lifecycle-machine.js';
import { archetypeOfMachine } from '../archetypes/catalog.js';
import { META } from '../../core/schema/common.js';
import type { SignalMessage } from '../../core/schema/signal.js';

/**
 * How an inbox signal becomes a lifecycle event — the one table (also in docs/lifecycles.md):
 *
 * | signal                                   | event                                            |
 * |------------------------------------------|--------------------------------------------------|
 * | directive from meta, subject `pause`     | PAUSE                                            |
 * | directive from meta, subject `resume`    | RESUME                                           |
 * | first other directive from meta          | MISSION_ASSIGNED {signalId, subject, body}       |
 * | any later directive (or one from a team) | DIRECTIVE_RECEIVED {signalId, subject}           |
 * | question                                 | QUESTION_RECEIVED {signalId, subject, from}      |
 * | report, alert                            | none: they inform; the lifecycle does not change |
 *
 * Between the pause/resume commands and the rest, an archetype may map signals itself
 * (`Archetype.signalEvent`: a consultant's `retire` directive and the asker's reply to a clarification).
 * Subjects match case-insensitively after trimming. "First" means: the lifecycle has no mission yet.
 * Every event is stamped with the signal's timestamp (`at`), so state entry times are when things happened.
 */
export type SignalCommand = 'pause' | 'resume';

export function signalCommand(message: SignalMessage): SignalCommand | undefined {
  if (message.type !== 'directive' || message.from !== META) return undefined;
  const subject = message.subject.trim().toLowerCase();
  return subject === 'pause' || subject === 'resume' ? subject : undefined;
}

export function eventForSignal(
  message: SignalMessage,
  snapshot: LifecycleSnapshot,
): { type: string; [key: string]: unknown } | undefined {
  const at = message.timestamp;
  const command = signalCommand(message);
  if (command === 'pause') return { type: 'PAUSE', at };
  if (command === 'resume') return { type: 'RESUME', at };
  const own = archetypeOfMachine(snapshot.machine.id)?.signalEvent?.(message, snapshot);
  if (own) return own;
  const ref = { signalId: message.id, subject: message.subject, at };
  switch (message.type) {
    case 'directive': {
      const hasMission = Boolean(snapshot.context.mission);
      if (message.from === META && !hasMission) return { type: 'MISSION_ASSIGNED', ...ref, body: message.body };
      return { type: 'DIRECTIVE_RECEIVED', ...ref };
    }
    case 'question':
      return { type: 'QUESTION_RECEIVED', ...ref, from: message.from };
    case 'report':
    case 'alert':
      return undefined;
  }
}
