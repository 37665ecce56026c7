/**
 * How much two documents repeat each other: the share of their non-blank lines that also appear in the
 * other one, over both documents' non-blank lines (0 when they share nothing, 1 when they are the same).
 */
export function sharedLineFraction(a: string, b: string): number {
  const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');
  const [la, lb] = [lines(a), lines(b)];
  const [sa, sb] = [new Set(la), new Set(lb)];
  const shared = la.filter((l) => sb.has(l)).length + lb.filter((l) => sa.has(l)).length;
  return shared / (la.length + lb.length);
}

/** The largest shared-line fraction of any two of `documents`. */
export function maxSharedLineFraction(documents: Iterable<string>): number {
  const texts = [...documents];
  let max = 0;
  for (let i = 0; i < texts.length; i++)
    for (let j = i + 1; j < texts.length; j++) max = Math.max(max, sharedLineFraction(texts[i]!, texts[j]!));
  return max;
}
