/**
 * English word and sentence segmenters, each made on first use: the first Intl object of a process
 * starts ICU (7–10 ms on Node 20 and 26), which `fed run` and `fed launch` paid as they loaded the
 * deliverable rules, before their first agent started, though no document is judged until an agent ends.
 */
const made = new Map<'word' | 'sentence', Intl.Segmenter>();

export function segmenter(granularity: 'word' | 'sentence'): Intl.Segmenter {
  let found = made.get(granularity);
  if (found === undefined) made.set(granularity, (found = new Intl.Segmenter('en', { granularity })));
  return found;
}
