import type { Claim, PipelineDef, Warning } from '../types.js';
import type { CheckpointBatch, CheckpointDoc, CheckpointPhase } from './types.js';
import { detectLang, LANGS, norm, VOCAB } from './i18n.js';
import { readClaim, readPhaseStatus } from './glyphs.js';
import { isBlankValue, matchHeader, readNumber, type HeaderKey } from './header.js';
import { cleanUnit, headingIndex, isSeparatorRow, isTableLine, isUnitHeading, splitRow, unitMatcher, type RowCell } from './table.js';

// checkpoint.md, recovery level 1 (docs/domain.md, Three sources of progress). The file is written by agents and
// edited by hand, so the parser is tolerant: anything it cannot read becomes a Warning with
// a 1-based line number, never an exception. When a unit appears twice the FIRST row wins
// (updateCheckpointCell edits that same row, so reads and writes agree).

/** Step id per cell index of a data row (index 0 is the unit column; null = ignored column). */
export type RowColumns = (string | null)[];

export interface CheckpointParse {
  doc: CheckpointDoc;
  /** 1-based line of every data row kept in the doc → its column mapping. */
  rowColumns: Map<number, RowColumns>;
}

const SUFFIXES = [...LANGS.map((l) => VOCAB[l].titleSuffix), 'Checkpoint', '进度检查点', '检查点', 'チェックポイント'];
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SUFFIX_RES = SUFFIXES.map((s) => new RegExp(`(?:^|[\\s—–\\-:：|])${escape(s)}\\s*$`, 'i'));

const TITLE = /^#(?!#)\s*(.*)$/;
const PHASE = /^##(?!#)\s*(?:phase|阶段|フェーズ)\s*(\d{1,9})\s*[:：.]?\s*(.*)$/i;
const BATCH = /^###(?!#)\s*(?:batch|批次|バッチ)\s*(\d{1,9})\s*(.*)$/i;
const EMPHASIS = /^[*_\s]+|[*_\s]+$/g;

function projectFromTitle(title: string): string | null {
  const t = title.replace(EMPHASIS, '');
  for (const re of SUFFIX_RES) {
    const m = re.exec(t);
    if (m) return t.slice(0, m.index).replace(/[\s—–\-:：|]+$/, '').trim() || null;
  }
  return t.trim() || null;
}

export const emptyDoc = (layout: CheckpointDoc['layout'] = { eol: '\n', bom: false }): CheckpointDoc => ({
  lang: 'en',
  project: null,
  lastUpdate: null,
  currentPhase: null,
  currentBatch: null,
  phases: [],
  batches: [],
  layout,
  warnings: [],
});

function detectLayout(text: string): CheckpointDoc['layout'] {
  const bom = text.startsWith('\uFEFF');
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const lf = (text.match(/\n/g)?.length ?? 0) - crlf;
  return { bom, eol: crlf > 0 && crlf >= lf ? '\r\n' : '\n' };
}

export function parseCheckpoint(text: string, pipeline: PipelineDef, source = 'checkpoint.md'): CheckpointDoc {
  return parseCheckpointDetailed(text, pipeline, source).doc;
}

export function parseCheckpointDetailed(text: string, pipeline: PipelineDef, source = 'checkpoint.md'): CheckpointParse {
  const layout = detectLayout(typeof text === 'string' ? text : '');
  const doc = emptyDoc(layout);
  const rowColumns = new Map<number, RowColumns>();
  try {
    new Parser(doc, rowColumns, pipeline, source).run(layout.bom ? text.slice(1) : text);
  } catch (err) {
    // Defence in depth: a bug here must cost the caller one warning, not the control room.
    doc.warnings.push({ source, message: `internal parser error: ${(err as Error)?.message ?? String(err)}` });
  }
  return { doc, rowColumns };
}

class Parser {
  private readonly isUnit: (s: string) => boolean;
  private readonly headings: Map<string, string>;
  private titleSeen = false;
  private readonly headerSeen = new Map<HeaderKey, number>();
  private batch: CheckpointBatch | null = null;
  private cols: RowColumns | null = null;
  private lastCols: RowColumns | null = null;
  /** Heading per cell index of the current table for columns that are no step; null elsewhere. */
  private extraCols: (string | null)[] = [];
  private inTable = false;
  private readonly units = new Map<string, number>();

  constructor(
    private readonly doc: CheckpointDoc,
    private readonly rowColumns: Map<number, RowColumns>,
    private readonly pipeline: PipelineDef,
    private readonly source: string,
  ) {
    this.isUnit = unitMatcher(pipeline);
    this.headings = headingIndex(pipeline);
  }

  private inFence = false;

  private warn(line: number, message: string): void {
    this.doc.warnings.push({ source: this.source, line, message } satisfies Warning);
  }

  run(body: string): void {
    const lines = body.split(/\r?\n/);
    lines.forEach((raw, i) => this.line(raw, i + 1));
    // The vocabulary lives in the title, header, headings and legend, never in table rows.
    this.doc.lang = detectLang(lines.filter((l) => !isTableLine(l.trim())).join('\n'), body);
  }

  private line(raw: string, ln: number): void {
    // An example table inside a code block is not the state (and must not shadow the real row).
    if (/^ {0,3}(```|~~~)/.test(raw)) {
      this.inFence = !this.inFence;
      this.inTable = false;
      this.cols = null;
      return;
    }
    if (this.inFence) return;
    const t = raw.trim();
    if (isTableLine(t)) return this.tableLine(raw, ln);
    this.inTable = false;
    this.cols = null;
    let m: RegExpExecArray | null;
    if ((m = PHASE.exec(t))) return this.phase(Number(m[1]), m[2], ln);
    if ((m = BATCH.exec(t))) return this.batchHeading(Number(m[1]), m[2], ln);
    if ((m = TITLE.exec(t))) {
      if (this.titleSeen) return this.warn(ln, 'a second title line; the first one is kept');
      this.titleSeen = true;
      this.doc.project = projectFromTitle(m[1]);
      return;
    }
    if (/^##\s*(?:phase|阶段|フェーズ)/i.test(t)) return this.warn(ln, `phase heading without a number: "${t}"`);
    if (/^###\s*(?:batch|批次|バッチ)/i.test(t)) return this.warn(ln, `batch heading without a number: "${t}"`);
    const h = matchHeader(raw);
    if (h) this.header(h.key, h.value, ln);
  }

  private header(key: HeaderKey, value: string, ln: number): void {
    const first = this.headerSeen.get(key);
    if (first !== undefined) return this.warn(ln, `duplicate ${key} line (first on line ${first}); the first one is kept`);
    this.headerSeen.set(key, ln);
    if (key === 'lastUpdate') {
      this.doc.lastUpdate = isBlankValue(value) ? null : value.trim();
      return;
    }
    const n = readNumber(value);
    if (n === undefined) this.warn(ln, `cannot read a number from ${key} "${value}"`);
    this.doc[key] = n ?? null;
  }

  private phase(id: number, rest: string, ln: number): void {
    this.batch = null;
    let name = rest;
    let status: CheckpointPhase['status'] = null;
    // The status follows the last dash separator: `大纲定稿 — ✅ 完成`.
    const seps = [...` ${rest}`.matchAll(/\s+[—–-]+\s*/g)];
    const last = seps[seps.length - 1];
    if (last && last.index !== undefined) {
      const tail = ` ${rest}`.slice(last.index + last[0].length).trim();
      const s = tail ? readPhaseStatus(tail) : undefined;
      const before = ` ${rest}`.slice(0, last.index);
      if (s !== undefined) {
        name = before;
        status = s === '?' ? null : s;
      } else if (tail && readClaim(tail) === 'needs_human') {
        this.warn(ln, `phase ${id} is marked "${tail}", which has no phase status; status left unknown`);
        name = before;
      } else if (tail && !/\p{L}/u.test(tail)) {
        // Only glyph-like tails are reported: `Whole - Book` is a name, `🟦` is a bad status.
        this.warn(ln, `unrecognised phase status "${tail}"; status left unknown`);
        name = before;
      }
    }
    name = name.replace(EMPHASIS, '').replace(/(?:\s+[—–-]+|[:：])\s*$/, '').trim();
    if (this.doc.phases.some((p) => p.id === id)) return this.warn(ln, `phase ${id} appears again; the first line is kept`);
    this.doc.phases.push({ id, name, status, line: ln });
  }

  private batchHeading(id: number, rest: string, ln: number): void {
    const tail = rest.replace(/^[\s—–\-:：]+/, '').replace(EMPHASIS, '').trim();
    let status: CheckpointBatch['status'] = null;
    if (tail) {
      const s = readPhaseStatus(tail);
      if (s === undefined) this.warn(ln, `unrecognised batch status "${tail}"; status left unknown`);
      else status = s === '?' ? null : s;
    }
    const existing = this.doc.batches.find((b) => b.id === id);
    if (existing) {
      this.warn(ln, `batch ${id} appears again (first on line ${existing.line}); its rows are merged into the first`);
      existing.status ??= status;
      this.batch = existing;
      return;
    }
    this.batch = { id, status, columns: [], rows: [], line: ln };
    this.doc.batches.push(this.batch);
  }

  /**
   * The batch a table belongs to. A table under no `### Batch N` heading (before the first one,
   * or under a phase line after the batches) holds units of no batch: the layout checkroom
   * itself writes for them, so no warning, and never a "batch 0" (a real `### Batch 0` is a
   * batch of its own). All such tables share one id-null entry.
   */
  private tableBatch(ln: number): CheckpointBatch {
    if (this.batch) return this.batch;
    let none = this.doc.batches.find((b) => b.id === null);
    if (!none) {
      none = { id: null, status: null, columns: [], rows: [], line: ln };
      this.doc.batches.push(none);
    }
    this.batch = none;
    return none;
  }

  private addColumns(batch: CheckpointBatch, cols: RowColumns): void {
    for (const c of cols) if (c && !batch.columns.includes(c)) batch.columns.push(c);
  }

  private tableLine(raw: string, ln: number): void {
    if (!this.inTable) {
      this.inTable = true;
      this.cols = null;
    }
    const cells = splitRow(raw);
    if (cells.length === 0 || isSeparatorRow(cells)) return;
    const first = cleanUnit(cells[0].text);
    if (this.isUnit(first)) return this.dataRow(first, cells, ln);
    if (this.cols === null || isUnitHeading(first)) return this.headerRow(cells, ln);
    this.warn(ln, `row's first cell "${first}" is not a unit id; row ignored`);
  }

  private headerRow(cells: RowCell[], ln: number): void {
    const batch = this.tableBatch(ln);
    const cols: RowColumns = [null];
    const extra: (string | null)[] = [null];
    let after: string | null = null;
    for (const cell of cells.slice(1)) {
      const step = this.headings.get(norm(cell.text)) ?? null;
      const known = step !== null && !cols.includes(step);
      if (step === null) this.warn(ln, `unknown column "${cell.text}"; kept as written when checkroom rewrites the file, not read as claims`);
      else if (!known) this.warn(ln, `column "${cell.text}" repeats step ${step}; column ignored`);
      cols.push(known ? step : null);
      // An unknown column keeps its values and its place; a repeated step is dropped.
      const keep = step === null && cell.text !== '' && !extra.includes(cell.text);
      extra.push(keep ? cell.text : null);
      if (keep && !(batch.extra ?? []).some((x) => x.heading === cell.text)) (batch.extra ??= []).push({ heading: cell.text, after });
      if (known) after = step;
    }
    this.cols = cols;
    this.lastCols = cols;
    this.extraCols = extra;
    this.addColumns(batch, cols);
  }

  private fallbackColumns(ln: number): RowColumns {
    if (this.lastCols) {
      this.warn(ln, 'table has no header row; assuming the columns of the previous table');
      return this.lastCols;
    }
    this.extraCols = [];
    const phase = this.pipeline.steps[0]?.phase;
    const cols = [null, ...this.pipeline.steps.filter((s) => s.phase === phase).map((s) => s.id)];
    this.warn(ln, `table has no header row; assuming the pipeline's steps (${cols.slice(1).join(', ')})`);
    return cols;
  }

  private dataRow(unit: string, cells: RowCell[], ln: number): void {
    const batch = this.tableBatch(ln);
    if (this.cols === null) {
      this.cols = this.fallbackColumns(ln);
      this.addColumns(batch, this.cols);
    }
    const cols = this.cols;
    const firstLine = this.units.get(unit);
    if (firstLine !== undefined) return this.warn(ln, `${unit} appears again (first on line ${firstLine}); the first row is kept`);
    this.units.set(unit, ln);
    if (cells.length !== cols.length) this.warn(ln, `row ${unit} has ${cells.length} cells but the header has ${cols.length}`);
    const claims: Record<string, Claim> = {};
    for (let j = 1; j < Math.min(cells.length, cols.length); j++) {
      const step = cols[j];
      if (!step) continue;
      const c = readClaim(cells[j].text);
      if (c === undefined) this.warn(ln, `unknown glyph "${cells[j].text}" for ${unit}/${step}; cell ignored`);
      else if (c !== '?') claims[step] = c;
    }
    const extra: Record<string, string> = {};
    this.extraCols.forEach((h, j) => {
      if (h !== null && j < cells.length) extra[h] = cells[j].text;
    });
    batch.rows.push(Object.keys(extra).length ? { unit, claims, extra, line: ln } : { unit, claims, line: ln });
    this.rowColumns.set(ln, cols);
  }
}
