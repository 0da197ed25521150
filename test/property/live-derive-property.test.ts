import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { loadWorkspace } from '../../src/workspace.js';
import type { WorkspaceState } from '../../src/types.js';
import { BOOK_MARKERS, PHASE_1_2, marked, pathOf, prose, summaries, tempDir, writeFiles } from '../helpers/workspace.js';

// Issue 10 item 3: the live state is kept by delta — only the units an event touches are
// re-derived, tallies and plan are spliced. After any sequence of real file events it must be
// exactly the state a fresh full `loadWorkspace` gives (scannedAt aside: it is a clock).

const UNITS = ['ch01', 'ch02', 'ch03', 'ch05'];
const STEPS = ['research', 'draft', 'r1', 'r2', 'review', 'panel', 'final', 'html'];
const HEAD: Record<string, string> = { research: 'Research', draft: 'Draft', r1: 'R1 Review', review: 'Merged Review', final: 'Final' };
const GLYPHS = ['✅', '⏳', '❌', '⚠️', '—'];

type Act =
  | { t: 'write'; u: string; s: string; body: 'short' | 'long' | 'done' | 'tiny-done' | 'marker-mid'; atomic: boolean }
  | { t: 'append'; u: string; s: string }
  | { t: 'rm'; u: string; s: string }
  | { t: 'dir'; u: string; s: string }
  | { t: 'junk'; u: string; s: string; kind: number }
  | { t: 'summaries'; units: string[] }
  | { t: 'outline'; present: boolean }
  | { t: 'checkpoint'; rows: { u: string; claims: number[]; batch: number }[] | null; current?: number | null };

const unit = fc.constantFrom(...UNITS);
const step = fc.constantFrom(...STEPS);
const act: fc.Arbitrary<Act> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('write' as const), u: unit, s: step, body: fc.constantFrom('short' as const, 'long' as const, 'done' as const, 'tiny-done' as const, 'marker-mid' as const), atomic: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('append' as const), u: unit, s: step }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('rm' as const), u: unit, s: step }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('dir' as const), u: unit, s: step }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('junk' as const), u: unit, s: step, kind: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('summaries' as const), units: fc.subarray(UNITS) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('outline' as const), present: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant('checkpoint' as const),
      rows: fc.option(fc.array(fc.record({ u: unit, claims: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 5, maxLength: 5 }), batch: fc.integer({ min: 1, max: 2 }) }), { maxLength: 4 }), { nil: null }),
      // The header's claim of where the work is (issue 18 item 3: where it stopped, kept by delta too).
      current: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
    }),
  },
);

const bodyOf = (u: string, s: string, body: Extract<Act, { t: 'write' }>['body']): string => {
  const marker = BOOK_MARKERS[s][1];
  const text = `# ${u} ${s}\n\n${prose(body === 'short' ? 20 : 400)}`;
  if (body === 'done') return marked(text, marker);
  if (body === 'tiny-done') return marked('# x', marker);
  if (body === 'marker-mid') return `${marked(text, marker)}\nmore text after the marker\n`;
  return text;
};

function checkpointText(rows: NonNullable<Extract<Act, { t: 'checkpoint' }>['rows']>, current: number | null = null): string {
  const cols = Object.keys(HEAD);
  const table = (b: number): string[] => [
    `### Batch ${b}`,
    `| Chapter | ${cols.map((c) => HEAD[c]).join(' | ')} |`,
    `|---|${cols.map(() => '---').join('|')}|`,
    ...rows.filter((r) => r.batch === b).map((r) => `| ${r.u} | ${r.claims.map((g) => GLYPHS[g]).join(' | ')} |`),
  ];
  const head = current === null ? [] : ['Current phase: 3', `Current batch: ${current}`, ''];
  return ['# Book — Progress Checkpoint', '', ...head, ...table(1), '', ...table(2), ''].join('\n');
}

function perform(root: string, a: Act): void {
  const at = (u: string, s: string): string => join(root, pathOf(u, s));
  switch (a.t) {
    case 'write': {
      const p = at(a.u, a.s);
      rmSync(p, { recursive: true, force: true });
      if (!a.atomic) return writeFileSync(p, bodyOf(a.u, a.s, a.body));
      const tmp = join(dirname(p), `.${a.u}-${a.s}.md.${process.pid}.1a2b3c4d.tmp`);
      writeFileSync(tmp, bodyOf(a.u, a.s, a.body));
      return renameSync(tmp, p);
    }
    case 'append':
      try {
        return appendFileSync(at(a.u, a.s), `\n<!-- ${BOOK_MARKERS[a.s][1]} -->\n`);
      } catch {
        return; // a directory stands there
      }
    case 'rm':
      return rmSync(at(a.u, a.s), { recursive: true, force: true });
    case 'dir':
      rmSync(at(a.u, a.s), { recursive: true, force: true });
      return mkdirSync(at(a.u, a.s));
    case 'junk': {
      const p = at(a.u, a.s);
      const name = [`.${a.u}.swp`, `${a.u}-${a.s}.md~`, '4913', `${a.u}-notes.md`][a.kind];
      return writeFileSync(join(dirname(p), name), 'editor scratch\n');
    }
    case 'summaries':
      return writeFileSync(join(root, 'meta/chapter-summaries.md'), summaries(a.units));
    case 'outline':
      return a.present ? writeFileSync(join(root, 'outline-final.md'), '# Outline\n\n- ch01\n') : rmSync(join(root, 'outline-final.md'), { force: true });
    case 'checkpoint':
      return a.rows ? writeFileSync(join(root, 'checkpoint.md'), checkpointText(a.rows, a.current)) : rmSync(join(root, 'checkpoint.md'), { force: true });
  }
}

const comparable = (s: WorkspaceState): unknown => ({ ...s, scannedAt: 0 });

let live: LiveWorkspace | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

describe('live state by delta (issue 10 item 3)', () => {
  it('equals a full loadWorkspace after any sequence of file events', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(act, { minLength: 1, maxLength: 12 }), async (acts) => {
        const root = tempDir();
        writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']), [pathOf('ch01', 'research')]: bodyOf('ch01', 'research', 'done') });
        for (const d of ['research', 'drafts', 'reviews', 'reader-feedback', 'chapters', 'publish']) mkdirSync(join(root, d), { recursive: true });
        live = await createLiveWorkspace(root, { batchMs: 5 });
        try {
          for (const a of acts) {
            perform(root, a);
            await live.settled();
            expect(comparable(live.state)).toEqual(comparable(await loadWorkspace(root)));
          }
        } finally {
          await live.close();
          live = null;
          rmSync(root, { recursive: true, force: true });
        }
      }),
      {
        numRuns: 40,
        // A phase touched then untouched again (tallies move both ways), a batch opened by a
        // finished unit, a new unit and its removal.
        examples: [
          [[{ t: 'write', u: 'ch02', s: 'final', body: 'long', atomic: false }, { t: 'rm', u: 'ch02', s: 'final' }]],
          [[{ t: 'checkpoint', rows: [{ u: 'ch01', claims: [0, 0, 4, 4, 4], batch: 1 }, { u: 'ch02', claims: [4, 4, 4, 4, 4], batch: 2 }] }, { t: 'write', u: 'ch01', s: 'draft', body: 'done', atomic: true }, { t: 'write', u: 'ch01', s: 'r1', body: 'short', atomic: false }]],
          // Claims change, batches stay: a unit keeps nothing from before but its facts.
          [[{ t: 'checkpoint', rows: [{ u: 'ch01', claims: [0, 1, 4, 4, 4], batch: 1 }] }, { t: 'checkpoint', rows: [{ u: 'ch01', claims: [0, 2, 3, 4, 0], batch: 1 }] }]],
          // A marker lost in Batch 1 while Batch 2 is worked on, the header saying Batch 2.
          [[{ t: 'checkpoint', rows: [{ u: 'ch01', claims: [0, 0, 0, 0, 0], batch: 1 }, { u: 'ch02', claims: [0, 1, 4, 4, 4], batch: 2 }], current: 2 }, { t: 'write', u: 'ch01', s: 'draft', body: 'long', atomic: false }, { t: 'write', u: 'ch02', s: 'draft', body: 'short', atomic: true }]],
          [[{ t: 'write', u: 'ch05', s: 'draft', body: 'tiny-done', atomic: true }, { t: 'dir', u: 'ch05', s: 'research' }, { t: 'rm', u: 'ch05', s: 'draft' }, { t: 'rm', u: 'ch05', s: 'research' }]],
        ],
      },
    );
  });
});
