// The `/` filter: whitespace-separated terms, all of which must occur (case-insensitive)
// in an item's text — its unit, step, status words, path, verdict or reason.

export function termsOf(query: string): string[] {
  return query.toLowerCase().split(/\s+/).filter(Boolean);
}

export function matchesFilter(query: string, ...haystack: (string | null | undefined)[]): boolean {
  const terms = termsOf(query);
  if (terms.length === 0) return true;
  const text = haystack.filter(Boolean).join(' ').toLowerCase();
  return terms.every((t) => text.includes(t));
}
