import type { BoxExpectation } from '../../../core/schema/judge-signal.js';
import { listDirectory } from '../../../infra/fs/list-directory.js';
import type { SignalTransport } from '../../../ports/signal-transport.js';
import { readSignalEntry } from './read-signal-entry.js';
import { isSignalFileName, nameHint } from './signal-file-name.js';

type Newest = NonNullable<SignalTransport['newest']>;
export type NewestPage = Parameters<Newest>[1];
export type BoxedSignal = Awaited<ReturnType<Newest>>[number];

/** A box folder to read, as the transport resolved it. */
export interface NewestBox {
  dir: string;
  expect: BoxExpectation;
}

/** A listed signal file and the span its timestamp lies in, from its name (unbounded for a name fed did not make). */
interface Candidate {
  box: number;
  name: string;
  /** The first and last millisecond the signal can have been sent at. */
  from: number;
  to: number;
}

/** A signal's place in time order: its timestamp (ms), then its id. */
interface Place {
  time: number;
  id: string;
}

type Read = BoxedSignal & Place;

/**
 * SignalTransport.newest for file-signal-v1. A signal file's name starts with the whole second of its
 * timestamp (signal-file-name.ts), so the boxes are listed, never read, and the names tried newest second
 * first: once the page is full and the next name's second ends before the page's last signal, no other
 * name can hold a newer one. A federation of a hundred thousand signals costs a listing of each box and
 * the parse of about a page of files. Names fed did not make can be of any time: those are all read. With
 * `types`, a name of another type is not even a candidate.
 */
export function newestSignals(boxes: readonly NewestBox[], page: NewestPage): BoxedSignal[] {
  const before = page.before && { time: Date.parse(page.before.timestamp), id: page.before.id };
  let candidates: Candidate[] = [];
  // The `from` of the newest names wholly before the cursor, newest first: a name whose span ends before
  // the last of them cannot be on the page, so it is not even kept (a listing is let go at once). Twice
  // the page of them, so that names which turn out not to hold valid signals still leave a full page.
  const surely: number[] = [];
  const sure = 2 * page.limit;
  const floor = () => (surely.length >= sure ? surely[sure - 1]! : Number.NEGATIVE_INFINITY);
  boxes.forEach(({ dir }, box) => {
    for (const name of listDirectory(dir)) {
      if (!isSignalFileName(name)) continue;
      const hint = nameHint(name);
      if (hint && page.types && !page.types.includes(hint.type)) continue;
      const from = hint?.time ?? Number.NEGATIVE_INFINITY;
      const to = hint ? hint.time + 999 : Number.POSITIVE_INFINITY;
      // A signal of a later second than the cursor's is newer than it.
      if ((before && from > before.time) || to < floor()) continue;
      candidates.push({ box, name, from, to });
      if (hint && (!before || to < before.time)) {
        const at = surely.findIndex((other) => other < from);
        surely.splice(at < 0 ? surely.length : at, 0, from);
        if (surely.length > sure) surely.pop();
      }
    }
    // Those kept before the floor rose are dropped now and then, so a huge federation never piles them up.
    if (candidates.length > 8 * page.limit) candidates = candidates.filter((candidate) => candidate.to >= floor());
  });
  candidates.sort((a, b) => (a.to === b.to ? 0 : a.to > b.to ? -1 : 1));
  const kept: Read[] = [];
  for (const candidate of candidates) {
    const last = kept.length >= page.limit ? kept[page.limit - 1] : undefined;
    if (last && candidate.to < last.time) break;
    const { dir, expect } = boxes[candidate.box]!;
    const entry = readSignalEntry(dir, candidate.name, expect);
    if (!entry) continue;
    const read: Read = { entry, box: candidate.box, time: Date.parse(entry.message.timestamp), id: entry.message.id };
    if (before && newerFirst(read, before) <= 0) continue;
    const at = kept.findIndex((other) => newerFirst(read, other) < 0);
    kept.splice(at < 0 ? kept.length : at, 0, read);
    if (kept.length > page.limit) kept.pop();
  }
  return kept.map(({ entry, box }) => ({ entry, box }));
}

/** Negative when `a` comes first, newest first: the later time, then the greater id. */
function newerFirst(a: Place, b: Place): number {
  return b.time - a.time || (a.id === b.id ? 0 : a.id > b.id ? -1 : 1);
}
