import stringWidth from 'string-width';
import type { Claim, Lang, PhaseStatus, PipelineDef } from '../types.js';
import type { CheckpointBatch, CheckpointDoc, CheckpointPhase, ExtraColumn } from './types.js';
import { norm, phaseName, stepHeading, VOCAB } from './i18n.js';
import { CLAIM_GLYPH, UNKNOWN_GLYPH, statusText } from './glyphs.js';

// Writes checkpoint.md in the layout of the source document (docs/domain.md, Three sources of progress): title,
// header fields, phase lines with the per-unit phase followed by its batch tables, then the
// later phases and the legend. parseCheckpoint(renderCheckpoint(doc)) gives doc back.

export interface CheckpointInput {
  project: string | null;
  lang: Lang;
  lastUpdate: string | null;
  currentPhase: number | null;
  currentBatch: number | null;
  phases: { id: number; name: string; status: PhaseStatus | null }[];
  /** A batch may override `columns` (step ids) for its own table. */
  batches: {
    /** null: the units of no batch, written under no heading. */
    id: number | null;
    status: PhaseStatus | null;
    rows: { unit: string; claims: Record<string, Claim>; extra?: Record<string, string> }[];
    columns?: string[];
    extra?: ExtraColumn[];
  }[];
  columns: string[];
  layout?: Partial<CheckpointDoc['layout']>;
}

/** A doc for writers: line numbers are 0 (not read from a file) and there are no warnings. */
export function buildCheckpointDoc(input: CheckpointInput): CheckpointDoc {
  return {
    lang: input.lang,
    project: input.project,
    lastUpdate: input.lastUpdate,
    currentPhase: input.currentPhase,
    currentBatch: input.currentBatch,
    phases: input.phases.map((p) => ({ id: p.id, name: p.name, status: p.status, line: 0 })),
    batches: input.batches.map((b) => ({
      id: b.id,
      status: b.status,
      columns: [...(b.columns ?? input.columns)],
      ...(b.extra?.length ? { extra: b.extra.map((x) => ({ ...x })) } : {}),
      rows: b.rows.map((r) => ({ unit: r.unit, claims: { ...r.claims }, ...(r.extra && Object.keys(r.extra).length ? { extra: { ...r.extra } } : {}), line: 0 })),
      line: 0,
    })),
    layout: { eol: input.layout?.eol ?? '\n', bom: input.layout?.bom ?? false },
    warnings: [],
  };
}

// Free text goes on one line; a newline in a project name must not forge a header field.
const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();

/** A phase name the pipeline knows (in any language) is written in the doc's language; others as they are. */
function phaseLabel(p: CheckpointPhase, pipeline: PipelineDef, lang: Lang): string {
  const def = pipeline.phases.find((d) => d.id === p.id);
  if (!def) return oneLine(p.name);
  const known = p.name.trim() === '' || [def.name, ...def.aliases].some((a) => norm(a) === norm(p.name));
  return oneLine(known ? phaseName(def, lang) : p.name);
}

export function phaseLine(p: CheckpointPhase, pipeline: PipelineDef, lang: Lang): string {
  const name = phaseLabel(p, pipeline, lang);
  const head = name ? `## Phase ${p.id}: ${name}` : `## Phase ${p.id}`;
  return p.status ? `${head} — ${statusText(p.status, VOCAB[lang].status[p.status])}` : head;
}

/** Pad cells so the columns line up by display width (CJK and emoji are two columns wide). */
export function renderTable(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 1, stringWidth(cell))));
  const line = (row: string[]): string => `| ${row.map((c, i) => c + ' '.repeat(widths[i] - stringWidth(c))).join(' | ')} |`;
  const [head, ...body] = rows;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)];
}

type Column = { step: string } | { extra: string };

/** Step columns in order, each unknown column right after the step it followed (or first). */
function tableColumns(b: CheckpointBatch): Column[] {
  const extras = b.extra ?? [];
  const after = (at: string | null): Column[] => extras.filter((x) => x.after === at || (at === null && x.after !== null && !b.columns.includes(x.after))).map((x) => ({ extra: x.heading }));
  return [...after(null), ...b.columns.flatMap((step) => [{ step }, ...after(step)])];
}

// A cell must not open a new column or row: a pipe is escaped, line breaks become spaces.
const cellText = (s: string): string => s.replace(/[\r\n]+/g, ' ').replace(/(?<!\\)\|/g, '\\|');

export function batchBlock(b: CheckpointBatch, pipeline: PipelineDef, lang: Lang): string[] {
  const v = VOCAB[lang];
  const heading = b.status ? `### Batch ${b.id} — ${statusText(b.status, v.status[b.status])}` : `### Batch ${b.id}`;
  const cols = tableColumns(b);
  const header = [v.unitColumn, ...cols.map((c) => ('step' in c ? stepHeading(pipeline.steps.find((s) => s.id === c.step), c.step, lang) : cellText(c.extra)))];
  const rows = b.rows.map((r) => [
    r.unit,
    ...cols.map((c) => ('step' in c ? (r.claims[c.step] ? CLAIM_GLYPH[r.claims[c.step]] : UNKNOWN_GLYPH) : cellText(r.extra?.[c.extra] ?? ''))),
  ]);
  // The chapters of no batch: a table under no heading, as it was read.
  return [...(b.id === null ? [] : [heading]), ...renderTable([header, ...rows])];
}

/** The phase whose steps the batch tables hold (phase 3 of the book). */
function unitPhaseId(doc: CheckpointDoc, pipeline: PipelineDef): number {
  for (const b of doc.batches) {
    const step = pipeline.steps.find((s) => b.columns.includes(s.id));
    if (step) return step.phase;
  }
  return pipeline.steps[0]?.phase ?? Number.POSITIVE_INFINITY;
}

export function renderCheckpoint(doc: CheckpointDoc, pipeline: PipelineDef): string {
  const lang = doc.lang;
  const v = VOCAB[lang];
  const project = doc.project ? oneLine(doc.project) : '';
  const batchValue = doc.currentBatch === null ? '—' : lang === 'en' ? `${doc.currentBatch}` : `Batch ${doc.currentBatch}`;
  const blocks: string[][] = [
    [project ? `# ${project} — ${v.titleSuffix}` : `# ${v.titleSuffix}`],
    [
      `${v.lastUpdated}: ${doc.lastUpdate ? oneLine(doc.lastUpdate) : '—'}`,
      `${v.currentPhase}: ${doc.currentPhase ?? '—'}`,
      `${v.currentBatch}: ${batchValue}`,
    ],
  ];
  // Batches sit under the per-unit phase; without that phase line, where it would be.
  const unitPhase = unitPhaseId(doc, pipeline);
  const at = doc.phases.findIndex((p) => p.id === unitPhase);
  const split = at >= 0 ? at : doc.phases.findIndex((p) => p.id > unitPhase);
  const cut = split < 0 ? doc.phases.length : split;
  const line = (p: CheckpointPhase): string => phaseLine(p, pipeline, lang);
  blocks.push(doc.phases.slice(0, cut).map(line));
  if (at >= 0) blocks.push([line(doc.phases[at])]);
  // The table of no batch first: after a `### Batch N` heading it would be read as that batch's.
  const ordered = [...doc.batches.filter((b) => b.id === null), ...doc.batches.filter((b) => b.id !== null)];
  for (const b of ordered) blocks.push(batchBlock(b, pipeline, lang));
  blocks.push(doc.phases.slice(at >= 0 ? at + 1 : cut).map(line));
  blocks.push([v.legend]);
  const lines = blocks.filter((b) => b.length > 0).flatMap((b, i) => (i === 0 ? b : ['', ...b]));
  return (doc.layout.bom ? '\uFEFF' : '') + lines.join(doc.layout.eol) + doc.layout.eol;
}
