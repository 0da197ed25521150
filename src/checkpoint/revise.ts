import type { Lang, PipelineDef } from '../types.js';
import type { CheckpointDoc, ClaimOf } from './types.js';
import type { HeaderKey } from './header.js';
import { VOCAB } from './i18n.js';
import { parseCheckpointDetailed } from './parse.js';
import { phaseLine } from './render.js';
import { splitKeepingEol } from './update-cell.js';
import { LineEdits } from './line-edits.js';
import { fenced, headerLines, headerValue, sectionEnd, withBatchStatus, withHeaderValue, withPhaseStatus } from './revise-lines.js';
import { reviseRows } from './revise-rows.js';

// A checkpoint rewrite that keeps every byte it does not own. `checkpoint
// --write`, `recover` and the control room's `w` rebuilt the file from what checkroom reads
// and dropped the rest: a blockquote between phases, a trailing `## 决策记录`, a column it did
// not know, the file's own labels (現在のフェーズ became 現在のPhase). Here the old text is
// edited in place: the owned spans — header values, phase and batch statuses, the step cells
// of unit rows — are set from `want`; rows, tables, phase lines and header fields that are
// missing are inserted where the file's layout puts them, in the file's own language and with
// a copy of its own table header. Nothing else is touched.

const claimsOfDoc = (doc: CheckpointDoc): ClaimOf => {
  const m = new Map(doc.batches.flatMap((b) => b.rows.flatMap((r) => Object.entries(r.claims).map(([s, c]) => [`${r.unit}\u0000${s}`, c] as const))));
  return (unit, step) => m.get(`${unit}\u0000${step}`);
};

const PHASE_HEAD = /^\s*##(?!#)\s*(?:phase|阶段|フェーズ)/i;
const KEYS: HeaderKey[] = ['lastUpdate', 'currentPhase', 'currentBatch'];
const LABEL: Record<HeaderKey, 'lastUpdated' | 'currentPhase' | 'currentBatch'> = { lastUpdate: 'lastUpdated', currentPhase: 'currentPhase', currentBatch: 'currentBatch' };

/** `old` with the state of `want` written into the spans checkroom owns. */
export function reviseCheckpoint(old: string, want: CheckpointDoc, pipeline: PipelineDef, claimOf: ClaimOf = claimsOfDoc(want)): string {
  const bom = old.startsWith('\uFEFF') ? '\uFEFF' : '';
  const parsed = parseCheckpointDetailed(old, pipeline);
  const doc = parsed.doc;
  const ed = new LineEdits(splitKeepingEol(old.slice(bom.length)), doc.layout.eol);
  const fence = fenced(ed);
  // New text speaks the file's own language (its vocabulary decides, not the workspace's).
  const lang = doc.lang;
  reviseHeader(ed, fence, want, lang);
  revisePhases(ed, fence, doc, want, pipeline, lang);
  for (const b of doc.batches) {
    const w = want.batches.find((x) => x.id === b.id);
    if (!w || b.id === null) continue;
    const line = withBatchStatus(ed.body(b.line - 1), b.status, w.status, lang);
    if (line !== null) ed.set(b.line - 1, line);
  }
  reviseRows(ed, fence, parsed, want, pipeline, lang, claimOf);
  return ed.text(bom);
}

function reviseHeader(ed: LineEdits, fence: boolean[], want: CheckpointDoc, lang: Lang): void {
  const found = headerLines(ed, fence);
  const missing: string[] = [];
  for (const key of KEYS) {
    const h = found.get(key);
    const value = headerValue(key, h ? h.value : null, want[key], lang);
    if (value === null) continue;
    if (h) ed.set(h.i, withHeaderValue(ed.body(h.i), h, value));
    // A field the file never had is added only when it says something.
    else if (value !== '—') missing.push(`${VOCAB[lang][LABEL[key]]}: ${value}`);
  }
  if (!missing.length) return;
  const last = Math.max(-1, ...[...found.values()].map((h) => h.i));
  const title = [...Array(ed.count).keys()].find((i) => !fence[i] && /^\s*#(?!#)/.test(ed.body(i)));
  ed.insertAfter(last >= 0 ? last : (title ?? -1), missing);
}

function revisePhases(ed: LineEdits, fence: boolean[], doc: CheckpointDoc, want: CheckpointDoc, pipeline: PipelineDef, lang: Lang): void {
  // A file with no phase line at all gets none: where they would go is the operator's layout.
  if (doc.phases.length === 0) return;
  for (const p of want.phases) {
    const have = doc.phases.find((q) => q.id === p.id);
    if (have) {
      if (p.status !== null && have.status !== p.status) ed.set(have.line - 1, withPhaseStatus(ed.body(have.line - 1), p.status, lang));
      continue;
    }
    const line = phaseLine({ ...p, line: 0 }, pipeline, lang);
    const next = doc.phases.filter((q) => q.id > p.id).sort((a, b) => a.line - b.line)[0];
    const at = next ? next.line - 2 : sectionEnd(ed, Math.max(...doc.phases.map((q) => q.line)) - 1, fence);
    // Phase lines stand together; after anything else (a table, a note) a blank line first.
    const gap = at >= 0 && ed.body(at).trim() !== '' && !PHASE_HEAD.test(ed.body(at)) && !ed.insertedAfter(at, 1);
    ed.insertAfter(at, gap ? ['', line] : [line], 1);
  }
}
