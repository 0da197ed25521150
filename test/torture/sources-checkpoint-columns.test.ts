import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Claim } from '../../src/types.js';
import { bookPreset } from '../../src/pipeline/book-preset.js';
import { parseCheckpoint } from '../../src/checkpoint/parse.js';
import { buildCheckpointDoc, renderCheckpoint } from '../../src/checkpoint/render.js';
import { updateCheckpointCell } from '../../src/checkpoint/update-cell.js';

// Issue 8 item 6 (torture, issue 8 item 9): columns checkroom does not know, anywhere in a
// table, with any values, survive a rewrite and a one-cell update, and stay in their place;
// chapters of no batch stay under no heading.

const book = bookPreset();
const STEPS = book.steps.map((s) => s.id);
const CLAIMS: Claim[] = ['done', 'in_progress', 'failed', 'needs_human', 'not_started'];
const HEADINGS = ['Owner', '备注', 'メモ', 'Due', 'Notes 2', 'x'];
const value = fc.array(fc.constantFrom('dana', '李', '完了', 'v2', '#3', '\\|', 'a b', '🦄', '—'), { maxLength: 3 }).map((w) => w.join(' '));

const arb = fc
  .record({
    columns: fc.subarray(STEPS, { minLength: 1 }),
    extra: fc.uniqueArray(fc.record({ heading: fc.constantFrom(...HEADINGS), at: fc.nat() }), { selector: (x) => x.heading, maxLength: 3 }),
    rows: fc.array(fc.record({ claims: fc.array(fc.constantFrom(...CLAIMS), { minLength: 10, maxLength: 10 }), values: fc.array(value, { minLength: 3, maxLength: 3 }) }), { minLength: 1, maxLength: 5 }),
    unheaded: fc.boolean(),
  })
  .map((g) => {
    const extra = g.extra.map((x) => ({ heading: x.heading, after: x.at % (g.columns.length + 1) === 0 ? null : g.columns[(x.at % (g.columns.length + 1)) - 1] }));
    const rows = g.rows.map((r, i) => ({
      unit: `ch${String(i + 1).padStart(2, '0')}`,
      claims: Object.fromEntries(g.columns.map((c, j) => [c, r.claims[j]])),
      extra: Object.fromEntries(extra.map((x, j) => [x.heading, r.values[j].trim()])),
    }));
    return buildCheckpointDoc({
      project: 'T',
      lang: 'en',
      lastUpdate: null,
      currentPhase: 3,
      currentBatch: null,
      phases: [{ id: 3, name: 'Writing', status: null }],
      batches: [{ id: g.unheaded ? null : 1, status: null, rows, extra }],
      columns: g.columns,
    });
  });

const body = (doc: ReturnType<typeof parseCheckpoint>) =>
  doc.batches.map((b) => ({ id: b.id, columns: b.columns, extra: [...(b.extra ?? [])].sort((x, y) => x.heading.localeCompare(y.heading)), rows: b.rows.map((r) => ({ unit: r.unit, claims: r.claims, extra: r.extra ?? {} })) }));

describe('unknown checkpoint columns under rewrite', () => {
  it('round-trip with their values and places, headed or not', () => {
    fc.assert(
      fc.property(arb, (doc) => {
        const text = renderCheckpoint(doc, book);
        const back = parseCheckpoint(text, book);
        const want = body(doc).map((b) => ({ ...b, rows: b.rows.map((r) => ({ ...r, extra: Object.keys(r.extra).length ? r.extra : {} })) }));
        expect(body(back)).toEqual(want);
        expect(renderCheckpoint(back, book)).toBe(text);
        expect(text.includes('### Batch')).toBe(doc.batches[0].id !== null);
      }),
      { numRuns: 200 },
    );
  });

  it('survive a one-cell update untouched', () => {
    fc.assert(
      fc.property(arb, fc.nat(), fc.constantFrom(...CLAIMS), (doc, n, claim) => {
        const text = renderCheckpoint(doc, book);
        const rows = doc.batches[0].rows;
        const r = rows[n % rows.length];
        const step = doc.batches[0].columns[n % doc.batches[0].columns.length];
        const res = updateCheckpointCell(text, r.unit, step, claim, book);
        const back = parseCheckpoint(res.text, book);
        expect(back.batches[0].rows.map((x) => x.extra ?? {})).toEqual(parseCheckpoint(text, book).batches[0].rows.map((x) => x.extra ?? {}));
      }),
      { numRuns: 100 },
    );
  });
});
