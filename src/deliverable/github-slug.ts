/**
 * Heading anchors as GitHub makes them (the `github-slugger` algorithm): lowercase, every character
 * that is not a letter, mark, digit, connector (`_`), space or hyphen removed, spaces turned into `-`;
 * a repeated anchor gets `-1`, `-2`, … in document order. `[Usage](#usage)` links depend on this.
 */
function baseSlug(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** Anchors of `titles` in document order, duplicates numbered exactly as GitHub does. */
export function githubSlugs(titles: readonly string[]): string[] {
  const occurrences = new Map<string, number>();
  return titles.map((title) => {
    const original = baseSlug(title);
    let slug = original;
    while (occurrences.has(slug)) {
      const count = (occurrences.get(original) ?? 0) + 1;
      occurrences.set(original, count);
      slug = `${original}-${count}`;
    }
    occurrences.set(slug, 0);
    return slug;
  });
}
