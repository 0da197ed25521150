import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWorkspace, readSources } from '../../../src/workspace.js';
import { deriveState } from '../../../src/state/derive.js';
import { checkMemory } from '../../../src/memory/check.js';
import { memoryCutSign } from '../../../src/memory/cut.js';
import { PHASE_1_2, copyDemo, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Long-memory integrity (DOMAIN.md section 5, scenario 3) and its rebuild plan.

const STEPS = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel'];

async function recoveryState(root: string) {
  const src = await readSources(root);
  return deriveState({ root: src.root, name: 'x', pipeline: src.config.pipeline, units: src.units, scan: src.scan, checkpoint: src.checkpoint, running: new Set(), warnings: [], rebuildMemory: true });
}

describe('checkMemory on the demo (scenario 3)', () => {
  it('finds ch04 without its summary although checkpoint.md claims it, and the cut-off glossary', async () => {
    const root = copyDemo();
    const state = await loadWorkspace(root);
    const m = await checkMemory(root, state);
    const byKind = m.issues.map((i) => `${i.kind} ${i.file}${i.unit ? ` ${i.unit}` : ''}`);
    expect(byKind).toEqual(['truncated meta/glossary.md', 'no_entry meta/chapter-summaries.md ch04']);
    expect(m.issues[0].detail).toMatch(/存放到/);
    expect(m.issues[1].detail).toContain('checkpoint.md claims it is done');
    // The rebuild plan reads the best source: no chapters/ yet, so the marked drafts.
    const ch04 = m.rebuild.find((r) => r.unit === 'ch04')!;
    expect(ch04).toMatchObject({ from: 'draft', source: 'drafts/ch04-draft.md', files: ['meta/chapter-summaries.md', 'meta/glossary.md'] });
    expect(ch04.reason).toMatch(/^rebuild ch04's summary and entries in meta\/glossary\.md from drafts\/ch04-draft\.md \(marked\)/);
    // The glossary is rebuilt from every finished chapter, not only the one that lost its summary.
    expect(m.rebuild.map((r) => r.unit)).toEqual(['ch01', 'ch02', 'ch04']);
    // The healthy files are not flagged (cross-references end without punctuation by habit).
    expect(m.issues.some((i) => i.file === 'meta/cross-references.md' || i.file === 'meta/metaphor-registry.md')).toBe(false);
  });

  it('plans a priority-1 rebuild of the lost entry, in recovery and in the everyday state alike', async () => {
    const root = copyDemo();
    const opted = await recoveryState(root);
    const entry = opted.next.find((n) => n.unit === 'ch04' && n.step === 'memory')!;
    expect(entry).toMatchObject({ priority: 1, action: 'rebuild_memory' });
    expect(entry.reason).toContain("rebuild ch04's entry in meta/chapter-summaries.md from drafts/ch04-draft.md (marked)");
    // Failures still come first; the rebuild is not also planned as a plain run.
    expect(opted.next.filter((n) => n.unit === 'ch04' && n.step === 'memory')).toHaveLength(1);
    expect(opted.next.findIndex((n) => n.action === 'rebuild_memory')).toBeGreaterThan(opted.next.findIndex((n) => n.action === 'retry'));
    const plain = await loadWorkspace(root);
    expect(plain.next.find((n) => n.unit === 'ch04' && n.step === 'memory')).toMatchObject({ priority: 1, action: 'rebuild_memory' });
  });
});

describe('checkMemory on built workspaces', () => {
  it('prefers the final chapter, then the marked draft, else a redo — and says why', async () => {
    const root = tempDir();
    const files: Record<string, string> = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']) };
    for (const u of ['ch01', 'ch02', 'ch03']) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
    // ch02's final chapter exists: the entry was once written, then lost.
    Object.assign(files, Object.fromEntries([doneFile('ch02', 'final')]));
    // ch03 final exists too, but its draft lost its marker and the final is unmarked: nothing usable.
    files['drafts/ch03-draft.md'] = '# ch03\n\nhalf a draft';
    files['chapters/ch03.md'] = '# ch03\n\nno marker here';
    writeFiles(root, files);
    const state = await recoveryState(root);
    const m = await checkMemory(root, state);
    expect(m.rebuild.map((r) => [r.unit, r.from, r.source])).toEqual([
      ['ch02', 'final', 'chapters/ch02.md'],
      ['ch03', 'redo', null],
    ]);
    expect(m.rebuild[0].reason).toContain('from chapters/ch02.md (final)');
    expect(m.rebuild[0].reason).toContain('chapters/ch02.md exists but the entry is missing');
    expect(m.rebuild[1].reason).toMatch(/^redo ch03/);
    expect(state.next.filter((n) => n.action === 'rebuild_memory').map((n) => n.unit)).toEqual(['ch02', 'ch03']);
  });

  it('reports missing, empty and cut-off long-memory files and a cut-off entry', async () => {
    const root = tempDir();
    const files: Record<string, string> = { ...PHASE_1_2 };
    for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile('ch01', s), doneFile('ch02', s)]));
    files['meta/chapter-summaries.md'] = '# Summaries\n\n## ch01 — one\n\nThe first chapter covers pages.\n\n## ch02 — two\n\nThe second chapter explains the B-tree and the';
    files['meta/metaphor-registry.md'] = '# Metaphors\n';
    delete files['meta/cross-references.md'];
    files['meta/glossary.md'] = '# Glossary\n\n```\npage: a block\n';
    writeFiles(root, files);
    const m = await checkMemory(root, await recoveryState(root));
    const got = m.issues.map((i) => `${i.kind} ${i.file}${i.unit ? ` ${i.unit}` : ''}`);
    expect(got).toEqual([
      'truncated meta/glossary.md',
      'empty meta/metaphor-registry.md',
      'missing meta/cross-references.md',
      'truncated meta/chapter-summaries.md ch02',
    ]);
    expect(m.issues[0].detail).toContain('code fence');
    expect(m.issues[3].detail).toMatch(/dangling word/);
    expect(m.rebuild.find((r) => r.unit === 'ch02')!.reason).toMatch(/^rebuild ch02's summary, entries in meta\/glossary\.md/);
  });

  it('says nothing about a healthy workspace', async () => {
    const root = tempDir();
    const files: Record<string, string> = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(['ch01']) };
    for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile('ch01', s)]));
    writeFiles(root, files);
    const m = await checkMemory(root, await recoveryState(root));
    expect(m).toMatchObject({ issues: [], rebuild: [] });
    writeFileSync(join(root, 'meta/chapter-summaries.md'), summaries(['ch01']) + '\n## ch05 — title\n');
    const m2 = await checkMemory(root, await recoveryState(root));
    expect(m2.issues).toEqual([]); // ch05 is not a unit of this workspace; an empty entry of an unknown unit is not judged
  });
});

describe('memoryCutSign', () => {
  it('catches a list whose last item lost the punctuation every other item has', () => {
    const glossary = '# G\n\n- **a**: one thing.\n- **b**: another thing.\n- **c**: a third thing.\n- **d**: stops right';
    expect(memoryCutSign(glossary)).toMatch(/no closing punctuation while 3 of 3 other items do, and the file does not end with a newline/);
    expect(memoryCutSign(glossary + '.\n')).toBeNull();
    // A list that never uses closing punctuation is not judged by it.
    expect(memoryCutSign('# X\n\n- ch02 → ch01: overflow\n- ch04 → ch02: pages\n- ch01 → ch10: page size\n')).toBeNull();
  });
});
