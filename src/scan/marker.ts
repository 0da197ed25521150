// Marker matching (docs/domain.md, The reference pipeline). A marker is proven only when the LAST non-blank
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

// Marker-shaped last lines that are not this step's marker: each gets its
// own reason, because "only the marker is missing: keep" would append a second marker under
// a wrong one, or hide an agent that wrote the wrong file.
export type MarkerShape = 'other' | 'inline' | 'case' | 'bare';

const COMMENT = /^<!--\s*([A-Za-z0-9_]+)\s*-->$/;
const INLINE = /\S.*?<!--\s*([A-Za-z0-9_]+)\s*-->$/;
const UPPER_TOKEN = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;

/** How the last non-blank line (trimmed) resembles a marker without being `<!-- name -->`; null when it does not. */
export function markerShape(lastLine: string, name: string): MarkerShape | null {
  const line = lastLine.replace(/^\uFEFF/, '').trim();
  if (markerRe(name).test(line)) return null;
  const upper = name.toUpperCase();
  const whole = COMMENT.exec(line);
  if (whole) {
    if (whole[1].toUpperCase() === upper) return 'case';
    return UPPER_TOKEN.test(whole[1]) ? 'other' : null;
  }
  const inline = INLINE.exec(line);
  if (inline && inline[1].toUpperCase() === upper) return 'inline';
  // The name with its brackets missing or broken: `DRAFT_COMPLETE`, `<!-- DRAFT_COMPLETE`, `**DRAFT_COMPLETE**`.
  if (line.length <= name.length + 16 && line.replace(/[^A-Za-z0-9_]/g, '').toUpperCase() === upper) return 'bare';
  return null;
}
