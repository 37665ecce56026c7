import { readdirSync } from 'node:fs';
import { ACK_FILE_SUFFIX, isAckFileName, isSignalFileName } from './signals/signal-file-name.js';

/**
 * Signal counts of a box from its file names alone: a monitoring cycle over hundreds of teams with
 * thousands of signals each must not read every signal body. A signal is acknowledged when its
 * `<name>.ack` exists beside it (the ack's content is trusted; `fed signal list` validates it).
 */
export interface BoxCensus {
  /** Signal file names in the box. */
  signals: string[];
  /** The subset without an ack file. */
  unacknowledged: Set<string>;
}

export function takeCensus(dir: string): BoxCensus {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { signals: [], unacknowledged: new Set() };
    throw error;
  }
  const acks = new Set(names.filter(isAckFileName));
  const signals = names.filter(isSignalFileName);
  return { signals, unacknowledged: new Set(signals.filter((name) => !acks.has(`${name}${ACK_FILE_SUFFIX}`))) };
}
