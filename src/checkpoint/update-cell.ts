import stringWidth from 'string-width';
import type { Claim, PipelineDef } from '../types.js';
import { CLAIM_GLYPH, readClaim } from './glyphs.js';
import { matchHeader } from './header.js';
import { parseCheckpointDetailed } from './parse.js';
import { splitRow } from './table.js';

// docs/domain.md, Three sources of progress: update checkpoint.md "after every step (one cell)". The launcher flips
// a cell the moment an agent starts or ends, so this edits that one cell in place and leaves
// every other byte alone (hand edits, notes, odd spacing survive). When the cell cannot be
// found the caller falls back to a full rewrite.

export interface CellEdit {
  text: string;
  changed: boolean;
  warning?: string;
  /** Set when the unit has no row at all (insert-row.ts can add one in place). */
  noRow?: true;
}

export interface Line {
  body: string;
  eol: string;
}

/** Split keeping each line's own terminator, so mixed CRLF/LF files come back byte for byte. */
export function splitKeepingEol(text: string): Line[] {
  const out: Line[] = [];
  const re = /\r?\n/g;
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({ body: text.slice(start, m.index), eol: m[0] });
    start = m.index + m[0].length;
  }
  out.push({ body: text.slice(start), eol: '' });
  return out;
}

export const join = (bom: string, lines: Line[]): string => bom + lines.map((l) => l.body + l.eol).join('');

// A rewrite sets thousands of cells whose texts are a handful of glyphs and paddings;
// string-width (grapheme segmentation) was most of a 1,000-row rewrite's second.
const WIDTHS = new Map<string, number>();
const width = (s: string): number => {
  let w = WIDTHS.get(s);
  if (w === undefined) {
    w = stringWidth(s);
    if (WIDTHS.size < 1000) WIDTHS.set(s, w);
  }
  return w;
};

/** Replace a cell's content, keeping its leading space and its display width when it fits. */
export function replaceCell(raw: string, content: string): string {
  // A blank cell's padding is all "leading": keep one space of it, the rest is room.
  const lead = raw.trim() === '' ? raw.slice(0, 1) : /^\s*/.exec(raw)![0];
  const trailWas = raw.length - raw.trimEnd().length;
  const room = width(raw) - width(lead) - width(content);
  const trail = Math.max(room, trailWas > 0 ? 1 : 0);
  return lead + content + ' '.repeat(trail);
}

export function updateCheckpointCell(text: string, unit: string, step: string, claim: Claim, pipeline: PipelineDef): CellEdit {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const body = text.slice(bom.length);
  const { doc, rowColumns } = parseCheckpointDetailed(text, pipeline);
  // The parser keeps the first row of a unit; edit that same row.
  const row = doc.batches.flatMap((b) => b.rows).find((r) => r.unit === unit);
  if (!row) return { text, changed: false, warning: `no row for ${unit} in checkpoint.md`, noRow: true };
  const cols = rowColumns.get(row.line);
  const index = cols ? cols.indexOf(step) : -1;
  if (index < 0) return { text, changed: false, warning: `no ${step} column in the table of ${unit} (line ${row.line})` };
  const lines = splitKeepingEol(body);
  const line = lines[row.line - 1];
  const cell = splitRow(line.body)[index];
  if (!cell) return { text, changed: false, warning: `row ${unit} (line ${row.line}) has no cell for ${step}` };
  if (readClaim(cell.text) === claim) return { text, changed: false };
  const raw = line.body.slice(cell.start, cell.end);
  line.body = line.body.slice(0, cell.start) + replaceCell(raw, CLAIM_GLYPH[claim]) + line.body.slice(cell.end);
  return { text: join(bom, lines), changed: true };
}

/** Rewrite the value of the first `最后更新:` / `Last updated:` line in place. */
export function touchLastUpdate(text: string, timestamp: string): CellEdit {
  const bom = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const lines = splitKeepingEol(text.slice(bom.length));
  const value = timestamp.replace(/[\r\n]+/g, ' ').trim();
  for (const line of lines) {
    // Same rule as the parser: skip table rows and headings, the first header line wins.
    if (/^\s*[|#]/.test(line.body)) continue;
    const h = matchHeader(line.body);
    if (!h || h.key !== 'lastUpdate') continue;
    if (h.value === value) return { text, changed: false };
    // An empty value has no space after the colon; add one so the line reads `最后更新: …`.
    const gap = h.start > 0 && /[:：]$/.test(line.body.slice(0, h.start)) ? ' ' : '';
    line.body = line.body.slice(0, h.start) + gap + value + line.body.slice(h.end);
    return { text: join(bom, lines), changed: true };
  }
  return { text, changed: false, warning: 'no "last updated" line in checkpoint.md' };
}
