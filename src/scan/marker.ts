// Marker matching (DOMAIN.md section 2). A marker is proven only when the LAST non-blank
// line is exactly `<!-- NAME -->`: whole-token (REVIEW_COMPLETE must not match
// R1_CODE_REVIEW_COMPLETE), tolerant of CRLF, a BOM, trailing spaces and newlines.

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const cache = new Map<string, RegExp>();
const markerRe = (name: string): RegExp => {
  let re = cache.get(name);
  if (!re) cache.set(name, (re = new RegExp(`^<!--\\s*${escapeRe(name)}\\s*-->$`)));
  return re;
};

export const markerLine = (name: string): string => `<!-- ${name} -->`;

export interface MarkerCheck {
  /** Last non-blank line is the marker. */
  marker: boolean;
  /** The marker appears on some line, but more content follows it. */
  markerNotLast: boolean;
  /** The last non-blank line (trimmed), for triage. */
  lastLine: string;
}

const cleanLines = (text: string): string[] => text.replace(/^\uFEFF/, '').split('\n').map((l) => l.replace(/\r$/, '').trim());

export function checkMarker(tail: string, name: string | null): MarkerCheck {
  const lines = cleanLines(tail);
  let last = lines.length - 1;
  while (last >= 0 && lines[last] === '') last--;
  const lastLine = last >= 0 ? lines[last] : '';
  if (!name) return { marker: false, markerNotLast: false, lastLine };
  const re = markerRe(name);
  const marker = re.test(lastLine);
  const markerNotLast = !marker && lines.slice(0, Math.max(last, 0)).some((l) => re.test(l));
  return { marker, markerNotLast, lastLine };
}
