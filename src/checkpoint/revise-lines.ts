import type { Lang, PhaseStatus } from '../types.js';
import type { HeaderKey } from './header.js';
import { isBlankValue, matchHeader, readNumber } from './header.js';
import { LEGEND_LABEL, LANGS, VOCAB } from './i18n.js';
import { CLAIM_GLYPH, readClaim, readPhaseStatus, statusText } from './glyphs.js';
import { isTableLine } from './table.js';
import type { LineEdits } from './line-edits.js';

// The owned spans of single lines: a header field's value, the status at
// the end of a phase or batch heading. The label, the phase name, the separator and every
// other character of the line stay as the file wrote them (現在のフェーズ stays).

const FENCE = /^ {0,3}(```|~~~)/;

/** Per line: true when it is inside a code fence (or is one), where nothing is the state. */
export function fenced(ed: LineEdits): boolean[] {
  const out: boolean[] = [];
  let inFence = false;
  for (let i = 0; i < ed.count; i++) {
    const f = FENCE.test(ed.body(i));
    out.push(inFence || f);
    if (f) inFence = !inFence;
  }
  return out;
}

export interface HeaderLine {
  i: number;
  value: string;
  start: number;
  end: number;
}

/** The first line of each header field, by the parser's rule (no table row, no heading, no fence). */
export function headerLines(ed: LineEdits, fence: boolean[]): Map<HeaderKey, HeaderLine> {
  const found = new Map<HeaderKey, HeaderLine>();
  for (let i = 0; i < ed.count; i++) {
    const body = ed.body(i);
    if (fence[i] || /^\s*[|#]/.test(body)) continue;
    const h = matchHeader(body);
    if (h && !found.has(h.key)) found.set(h.key, { i, value: h.value, start: h.start, end: h.end });
  }
  return found;
}

/** The value a header field gets, in the form the old value had (`Batch 2` → `Batch 3`); null when it stays. */
export function headerValue(key: HeaderKey, old: string | null, want: string | number | null, lang: Lang): string | null {
  if (key === 'lastUpdate') {
    const v = typeof want === 'string' ? want.replace(/[\r\n]+/g, ' ').trim() : '';
    if (old !== null && (old.trim() === v || (v === '' && isBlankValue(old)))) return null;
    return v || '—';
  }
  const n = typeof want === 'number' ? want : null;
  const was = old === null ? undefined : readNumber(old);
  if (old !== null && was === n) return null;
  if (n === null) return '—';
  if (old !== null && typeof was === 'number') return old.replace(/\d{1,9}/, String(n));
  return key === 'currentBatch' && lang !== 'en' ? `Batch ${n}` : String(n);
}

/** `line` with its header value replaced; an empty value gets a space after the colon. */
export function withHeaderValue(body: string, h: HeaderLine, value: string): string {
  const gap = h.start > 0 && /[:：]$/.test(body.slice(0, h.start)) ? ' ' : '';
  return body.slice(0, h.start) + gap + value + body.slice(h.end);
}

const PHASE_LINE = /^(\s*##(?!#)\s*(?:phase|阶段|フェーズ)\s*\d{1,9})(.*?)(\s*)$/i;
const BATCH_LINE = /^(\s*###(?!#)\s*(?:batch|批次|バッチ)\s*\d{1,9})(.*?)(\s*)$/i;
const EMPHASIS = /^[*_\s]+|[*_\s]+$/g;

/**
 * A status in the form the old one had: a bare glyph stays a glyph (`✅`), a bare word a word
 * (`完成`), anything else glyph and word as checkroom writes them (`✅ 完成`).
 */
export function statusLike(old: string, status: PhaseStatus, lang: Lang): string {
  const word = VOCAB[lang].status[status];
  const letters = /\p{L}/u.test(old);
  const glyph = /[^\p{L}\s*_]/u.test(old);
  if (old && !letters && status !== 'not_started') return CLAIM_GLYPH[status];
  if (letters && !glyph) return word;
  return statusText(status, word);
}

/** A phase line with its status (after the last dash) set; the name and separator stay. */
export function withPhaseStatus(body: string, status: PhaseStatus, lang: Lang): string {
  const m = PHASE_LINE.exec(body);
  if (!m) return body;
  const rest = m[2];
  const padded = ` ${rest}`;
  const seps = [...padded.matchAll(/\s+[—–-]+\s*/g)];
  const last = seps[seps.length - 1];
  if (last?.index !== undefined) {
    const cut = last.index + last[0].length;
    const tail = padded.slice(cut).trim();
    // A status, or a glyph-like tail in the status's place (the parser's own rule).
    if (tail && (readPhaseStatus(tail) !== undefined || readClaim(tail) !== undefined || !/\p{L}/u.test(tail))) return m[1] + rest.slice(0, cut - 1) + statusLike(tail, status, lang) + m[3];
  }
  return `${m[1]}${rest} — ${statusText(status, VOCAB[lang].status[status])}${m[3]}`;
}

/** A batch heading with its status set (null: removed when it was a status); null when unchanged. */
export function withBatchStatus(body: string, old: PhaseStatus | null, want: PhaseStatus | null, lang: Lang): string | null {
  const m = BATCH_LINE.exec(body);
  if (!m) return null;
  const rest = m[2];
  const tail = rest.replace(/^[\s—–\-:：]+/, '').replace(EMPHASIS, '').trim();
  const isStatus = tail !== '' && readPhaseStatus(tail) !== undefined;
  if (want === null) {
    // checkroom writes no status for a batch under way or done; a stale "not started" or "failed" goes.
    return isStatus && (old === 'not_started' || old === 'failed') ? m[1] + m[3] : null;
  }
  if (want === old) return null;
  const sep = /^[\s—–\-:：]+/.exec(rest)?.[0] ?? '';
  return isStatus ? `${m[1]}${sep.trim() ? sep : ' — '}${statusLike(tail, want, lang)}${m[3]}` : `${m[1]}${rest} — ${statusText(want, VOCAB[lang].status[want])}${m[3]}`;
}

const LEGEND = new RegExp(`^\\s*(?:${LANGS.map((l) => LEGEND_LABEL[l]).join('|')})\\s*[:：]`, 'i');

/** The last non-blank line of the section that line `i` opens: up to the next `#`/`##` heading or the legend. */
export function sectionEnd(ed: LineEdits, i: number, fence: boolean[]): number {
  let j = i + 1;
  while (j < ed.count && (fence[j] || !(/^\s{0,3}#{1,2}(?!#)\s*\S/.test(ed.body(j)) || LEGEND.test(ed.body(j))))) j++;
  let k = j - 1;
  while (k > i && ed.body(k).trim() === '') k--;
  return k;
}

/** The last line of the table that holds line `i`. */
export function tableEnd(ed: LineEdits, i: number): number {
  let j = i;
  while (j + 1 < ed.count && isTableLine(ed.body(j + 1))) j++;
  return j;
}
