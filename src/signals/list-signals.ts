import { InvalidInputError } from '../errors.js';
import { findTeam } from '../registry/find-team.js';
import { readRegistry } from '../registry/registry-file.js';
import { META } from '../schema/common.js';
import { SIGNAL_TYPES } from '../schema/signal.js';
import { SIGNAL_BOXES, type SignalBox } from './parse-signal-file.js';
import { readSignalBox, type InvalidSignalFile, type SignalEntry } from './read-signals.js';
import { resolveSignalWorkspace } from './resolve-workspace.js';

export interface ListSignalsQuery {
  /** Whose box: a team id (or domain) or `meta` (default). */
  team?: string;
  /** Default `inbox`. */
  box?: SignalBox;
  /** Only signals without an acknowledgment (inbox only: acks live beside the signals in the recipient's inbox). */
  unacknowledged?: boolean;
  type?: string;
  /** Only signals from this sender (team id or domain, or `meta`). */
  from?: string;
}

export interface SignalListing {
  team: string;
  box: SignalBox;
  dir: string;
  /** Sorted by timestamp. */
  signals: SignalEntry[];
  /** Every file of the box that is not a valid signal, with the reason — filters never hide these. */
  invalid: InvalidSignalFile[];
}

/** `fed signal list`: the valid signals of one box, filtered, and every invalid file of it. */
export function listSignals(root: string, query: ListSignalsQuery = {}): SignalListing {
  const box = query.box ?? 'inbox';
  if (!SIGNAL_BOXES.includes(box)) throw new InvalidInputError(`--box: expected one of ${SIGNAL_BOXES.join(', ')}, got "${String(box)}"`);
  if (query.unacknowledged && box !== 'inbox') {
    throw new InvalidInputError("--unacked applies to an inbox: acknowledgments are written beside the signal in the recipient's inbox");
  }
  if (query.type !== undefined && !(SIGNAL_TYPES as readonly string[]).includes(query.type)) {
    throw new InvalidInputError(`--type: expected one of ${SIGNAL_TYPES.join(', ')}, got "${query.type}"`);
  }
  const registry = readRegistry(root);
  const workspace = resolveSignalWorkspace(root, query.team ?? META, { role: 'team (--team)', allowArchived: true, registry });
  const dir = workspace[box];
  const from = query.from === undefined ? undefined : (findTeam(registry, query.from)?.domainId ?? query.from);
  const { signals, invalid } = readSignalBox(dir, { owner: workspace.id, box });
  const wanted = signals.filter(
    ({ message }) =>
      (!query.unacknowledged || !message.acknowledged) &&
      (query.type === undefined || message.type === query.type) &&
      (from === undefined || message.from === from),
  );
  return { team: workspace.id, box, dir, signals: wanted, invalid };
}
