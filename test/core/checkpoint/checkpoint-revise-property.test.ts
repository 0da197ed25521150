import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Claim, Lang, PhaseStatus } from '../../../src/types.js';
import { bookPreset } from '../../../src/pipeline/book-preset.js';
import { parseCheckpoint, parseCheckpointDetailed } from '../../../src/checkpoint/parse.js';
import { buildCheckpointDoc, renderCheckpoint } from '../../../src/checkpoint/render.js';
import { reviseCheckpoint } from '../../../src/checkpoint/revise.js';
import { matchHeader } from '../../../src/checkpoint/header.js';
import { isTableLine } from '../../../src/checkpoint/table.js';
import type { CheckpointDoc } from '../../../src/checkpoint/types.js';

// Issue 17 item 2, the round-trip property: operator text of every kind (blockquotes, notes,
// extra `##` sections, columns checkroom does not know with their values, unknown header
// lines, the file's own CJK labels, CRLF, a BOM, a last line without a line end) around and inside
// a valid checkpoint survives a rewrite with random cell, status and header changes: every
// line checkroom does not own comes back byte for byte, in order; an owned line keeps all but
// its owned span; and a rewrite that changes nothing gives the file back unchanged.

const book = bookPreset();
const CLAIMS: Claim[] = ['done', 'in_progress', 'failed', 'needs_human', 'not_started'];
const STATUSES: PhaseStatus[] = ['done', 'in_progress', 'not_started', 'failed'];
const STEPS = book.steps.filter((s) => s.phase === 3).map((s) => s.id);
const EXTRA = ['リサーチ', '备注', 'Owner', 'メモ'];
const unitId = (n: number) => `ch${String(n).padStart(2, '0')}`;

// Lines an operator writes between blocks: none is a heading, header field, table row or fence.
const OPERATOR = [
  '> 备注: 第 3 章的 R2 等作者回复后再跑,别自动重试。',
  '> (operator, 11-28)',
  '## 决策记录',
  '## Notes',
  '- 11-27: ch02 的比喻改用"图书馆"',
  'メモ: 田中さんに確認する',
  'Owner: dana',
  '負責者: 田中',
  '<!-- keep me -->',
  '**bold** note — with a dash',
  '',
  '   ',
  '\t',
];
const noise = fc.string({ unit: fc.constantFrom('a', '文', 'カ', ' ', '*', '>', '…', '—', 'é'), maxLength: 12 }).map((s) => `note ${s}`);
const operatorLine = fc.oneof(fc.constantFrom(...OPERATOR), noise);

// The file's own labels for the header fields, in place of checkroom's.
const LABEL_ALIASES: [string, string][] = [
  ['現在のPhase:', '現在のフェーズ:'],
  ['当前Phase:', '当前阶段:'],
  ['最終更新:', '最終更新日:'],
];

const scenario = fc
  .record({
    lang: fc.constantFrom<Lang>('zh', 'en', 'ja'),
    crlf: fc.boolean(),
    noFinalEol: fc.boolean(),
    bom: fc.boolean(),
    alias: fc.boolean(),
    columns: fc.subarray(STEPS, { minLength: 1 }),
    extra: fc.uniqueArray(fc.record({ heading: fc.constantFrom(...EXTRA), at: fc.nat() }), { selector: (x) => x.heading, maxLength: 2 }),
    batches: fc.array(fc.record({ size: fc.integer({ min: 1, max: 3 }), status: fc.option(fc.constantFrom(...STATUSES), { nil: null }) }), { minLength: 1, maxLength: 3 }),
    claims: fc.array(fc.constantFrom(...CLAIMS), { minLength: 60, maxLength: 60 }),
    values: fc.array(fc.constantFrom('田中 済', 'dana', '未定', 'v2', '—', ''), { minLength: 20, maxLength: 20 }),
    inserts: fc.array(fc.record({ at: fc.nat(), lines: fc.array(operatorLine, { minLength: 1, maxLength: 3 }) }), { maxLength: 6 }),
    // The rewrite: cell changes, phase and batch statuses, header values.
    cellChanges: fc.array(fc.record({ cell: fc.nat(), claim: fc.constantFrom(...CLAIMS) }), { maxLength: 8 }),
    phaseStatus: fc.array(fc.option(fc.constantFrom(...STATUSES), { nil: null }), { minLength: 5, maxLength: 5 }),
    batchStatus: fc.array(fc.option(fc.constantFrom(...STATUSES), { nil: null }), { minLength: 3, maxLength: 3 }),
    lastUpdate: fc.constantFrom('2026-12-01 09:30', '2026-11-28 14:03'),
    currentPhase: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
    currentBatch: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  })
  .map((g) => {
    let n = 0;
    let v = 0;
    const extra = g.extra.map((x) => ({ heading: x.heading, after: x.at % (g.columns.length + 1) === 0 ? null : g.columns[(x.at % (g.columns.length + 1)) - 1] }));
    const doc = buildCheckpointDoc({
      project: '示例书',
      lang: g.lang,
      lastUpdate: '2026-11-28 14:03',
      currentPhase: 3,
      currentBatch: 1,
      phases: [1, 2, 3, 4, 5].map((id) => ({ id, name: '', status: id < 3 ? 'done' : id === 3 ? 'in_progress' : 'not_started' })),
      batches: g.batches.map((b, i) => ({
        id: i + 1,
        status: b.status,
        extra,
        rows: Array.from({ length: b.size }, () => {
          n++;
          return { unit: unitId(n), claims: Object.fromEntries(g.columns.map((c, j) => [c, g.claims[(n * 7 + j) % 60]])), extra: Object.fromEntries(extra.map((x) => [x.heading, g.values[v++ % 20]])) };
        }),
      })),
      columns: g.columns,
    });
    let lines = renderCheckpoint(doc, book).replace(/\n$/, '').split('\n');
    if (g.alias) lines = lines.map((l) => LABEL_ALIASES.reduce((s, [a, b]) => (s.startsWith(a) ? b + s.slice(a.length) : s), l));
    // Operator text goes between blocks, never inside a table.
    for (const ins of g.inserts) {
      const ok = [...Array(lines.length + 1).keys()].filter((k) => !(k > 0 && k < lines.length && isTableLine(lines[k - 1]) && isTableLine(lines[k])));
      const k = ok[ins.at % ok.length];
      lines.splice(k, 0, ...ins.lines);
    }
    const eol = g.crlf ? '\r\n' : '\n';
    const text = (g.bom ? '\uFEFF' : '') + lines.join(eol) + (g.noFinalEol ? '' : eol);
    return { g, text };
  });

/** The 0-based lines checkroom owns in `text`: header fields, phase and batch headings, unit rows. */
function owned(text: string): Set<number> {
  const { doc } = parseCheckpointDetailed(text, book);
  const out = new Set<number>([...doc.phases.map((p) => p.line - 1), ...doc.batches.filter((b) => b.id !== null).map((b) => b.line - 1), ...doc.batches.flatMap((b) => b.rows.map((r) => r.line - 1))]);
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((l, i) => {
    if (/^\s*[|#]/.test(l)) return;
    const h = matchHeader(l);
    if (h && !seen.has(h.key)) {
      seen.add(h.key);
      out.add(i);
    }
  });
  return out;
}

/** `old` with the scenario's changes applied, as the state a rewrite writes. */
function wanted(old: CheckpointDoc, g: { cellChanges: { cell: number; claim: Claim }[]; phaseStatus: (PhaseStatus | null)[]; batchStatus: (PhaseStatus | null)[]; lastUpdate: string; currentPhase: number | null; currentBatch: number | null }): CheckpointDoc {
  const want: CheckpointDoc = structuredClone(old);
  const cells = want.batches.flatMap((b) => b.rows.flatMap((r) => b.columns.map((s) => ({ r, s }))));
  for (const c of g.cellChanges) if (cells.length) cells[c.cell % cells.length].r.claims[cells[c.cell % cells.length].s] = c.claim;
  want.phases.forEach((p, i) => (p.status = g.phaseStatus[i] ?? p.status));
  want.batches.forEach((b, i) => (b.status = g.batchStatus[i] ?? null));
  return { ...want, lastUpdate: g.lastUpdate, currentPhase: g.currentPhase, currentBatch: g.currentBatch };
}

const lineSplit = (s: string): string[] => s.match(/[^\n]*\n|[^\n]+$/g) ?? [];

describe('a checkpoint rewrite keeps what it does not own (issue 17 item 2)', () => {
  it('every unowned line comes back byte for byte and in place; owned lines change only their span', () => {
    fc.assert(
      fc.property(scenario, ({ g, text }) => {
        const before = parseCheckpoint(text, book);
        const want = wanted(before, g);
        const out = reviseCheckpoint(text, want, book);
        // Nothing to insert here (every unit has its row, every phase its line): line for line.
        const a = lineSplit(text);
        const b = lineSplit(out);
        expect(b.length).toBe(a.length);
        const mine = owned(text);
        a.forEach((l, i) => {
          if (!mine.has(i)) expect(b[i]).toBe(l);
        });
        // Owned lines keep their label and line end (現在のフェーズ stays).
        for (const i of mine) {
          expect(/\r?\n$/.exec(b[i])?.[0] ?? '').toBe(/\r?\n$/.exec(a[i])?.[0] ?? '');
          const h = matchHeader(a[i].replace(/\r?\n$/, ''));
          if (h) expect(b[i].slice(0, h.start)).toBe(a[i].slice(0, h.start));
        }
        // And the file now says what was wanted; the extra columns keep their values.
        const after = parseCheckpoint(out, book);
        const claims = (d: CheckpointDoc) => d.batches.map((x) => x.rows.map((r) => [r.unit, r.claims, r.extra ?? {}]));
        expect(claims(after)).toEqual(claims(want));
        expect(after.phases.map((p) => p.status)).toEqual(want.phases.map((p) => p.status));
        expect(after.batches.map((x) => x.status)).toEqual(
          want.batches.map((w, i) => w.status ?? (before.batches[i].status === 'done' || before.batches[i].status === 'in_progress' ? before.batches[i].status : null)),
        );
        expect([after.lastUpdate, after.currentPhase, after.currentBatch]).toEqual([want.lastUpdate, want.currentPhase, want.currentBatch]);
      }),
      { numRuns: 300 },
    );
  });

  it('a rewrite that changes nothing is the identity', () => {
    fc.assert(
      fc.property(scenario, ({ text }) => {
        expect(reviseCheckpoint(text, parseCheckpoint(text, book), book)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('rows and phase lines that must be added go in, and every old line stays, in order', () => {
    fc.assert(
      fc.property(scenario, fc.nat(), ({ g, text }, drop) => {
        // The old file lost some unit rows and a phase line; the state still has them.
        const lines = lineSplit(text);
        const { doc } = parseCheckpointDetailed(text, book);
        const rows = doc.batches.flatMap((b) => b.rows);
        const gone = new Set([rows[drop % rows.length].line - 1, doc.phases[drop % doc.phases.length].line - 1]);
        const old = lines.filter((_, i) => !gone.has(i)).join('');
        const want = wanted(doc, g);
        const out = reviseCheckpoint(old, want, book);
        // Every old line is in the new file, in order (a subsequence), byte for byte unless owned.
        const a = lineSplit(old);
        const b = lineSplit(out);
        const mine = owned(old);
        let j = 0;
        a.forEach((l, i) => {
          if (mine.has(i)) return;
          while (j < b.length && b[j] !== l && !(b[j] === l + (old.includes('\r\n') ? '\r\n' : '\n') && i === a.length - 1)) j++;
          expect(j, `line ${i + 1} ${JSON.stringify(l)} is kept`).toBeLessThan(b.length);
          j++;
        });
        const after = parseCheckpoint(out, book);
        const byUnit = (d: CheckpointDoc) => Object.fromEntries(d.batches.flatMap((x) => x.rows.map((r) => [r.unit, r.claims])));
        expect(byUnit(after)).toEqual(byUnit(want));
        expect(after.phases.map((p) => p.id).sort()).toEqual([1, 2, 3, 4, 5]);
      }),
      { numRuns: 300 },
    );
  });
});
