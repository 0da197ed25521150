import { describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { readFileFacts, WHOLE_LIMIT } from '../../../src/scan/file-facts.js';
import { countChars } from '../../../src/scan/count-chars.js';
import { checkMarker } from '../../../src/scan/marker.js';
import { triageUnmarked, truncationSign } from '../../../src/triage/triage.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { tempDir, writeFiles, PHASE_1_2, prose, marked, summaries, doneFile } from '../../helpers/workspace.js';
import { rewriteCheckpoint } from '../../../src/checkpoint/rewrite.js';
import { parseCheckpoint } from '../../../src/checkpoint/parse.js';
import { claimsOf } from '../../../src/state/derive.js';

// The filesystem scan on real files: markers, characters, triage verdicts.

const facts = (content: string | Buffer, marker = 'DRAFT_COMPLETE') => {
  const root = tempDir();
  const p = join(root, 'f.md');
  writeFileSync(p, content);
  return readFileFacts(p, 'f.md', marker);
};

describe('marker on the last non-blank line', () => {
  it('accepts LF, CRLF, a BOM, trailing spaces and trailing newlines', () => {
    expect(facts(`# T\n\n${prose(200)}\n<!-- DRAFT_COMPLETE -->\n`).marker).toBe(true);
    expect(facts(`# T\r\n\r\n${prose(200)}\r\n<!-- DRAFT_COMPLETE -->\r\n`).marker).toBe(true);
    expect(facts(`\uFEFF<!-- DRAFT_COMPLETE -->`).marker).toBe(true);
    expect(facts(`${prose(200)}\n<!-- DRAFT_COMPLETE -->   \t\n\n\n  \n`).marker).toBe(true);
  });

  it('matches whole tokens only: REVIEW_COMPLETE is not R1_CODE_REVIEW_COMPLETE', () => {
    expect(facts(`${prose(200)}\n<!-- R1_CODE_REVIEW_COMPLETE -->\n`, 'REVIEW_COMPLETE').marker).toBe(false);
    expect(facts(`${prose(200)}\n<!-- REVIEW_COMPLETE_OLD -->\n`, 'REVIEW_COMPLETE').marker).toBe(false);
    expect(facts(`${prose(200)}\n<!-- REVIEW_COMPLETE -->\n`, 'REVIEW_COMPLETE').marker).toBe(true);
  });

  it('does not count a marker that is followed by more content', () => {
    const f = facts(`${prose(200)}\n<!-- DRAFT_COMPLETE -->\n\n## Appendix\nmore text.\n`);
    expect(f.marker).toBe(false);
    expect(f.markerNotLast).toBe(true);
  });

  it('does not count a marker quoted inside a line', () => {
    expect(facts(`${prose(200)}\nwrite <!-- DRAFT_COMPLETE --> at the end.\n`).marker).toBe(false);
  });

  it('reads only the tail of a large file and still counts every character', () => {
    const body = '数据'.repeat(WHOLE_LIMIT * 2); // well past the first read: tail + chunked count
    const f = facts(`${body}\n<!-- DRAFT_COMPLETE -->\n`);
    expect(f.marker).toBe(true);
    expect(f.chars).toBe(body.length + 1 + '<!-- DRAFT_COMPLETE -->'.length + 1);
    expect(f.tail.length).toBeLessThan(10_000);
  });

  it('property: any body followed by the marker line is done; any other last line is not', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.constantFrom('\n', '\r\n'), (body, eol) => {
        const clean = body.replace(/<!--/g, '');
        expect(checkMarker(`${clean}${eol}<!-- X_DONE -->${eol}`, 'X_DONE').marker).toBe(true);
        expect(checkMarker(`<!-- X_DONE -->${eol}${clean}x`, 'X_DONE').marker).toBe(false);
      }),
    );
  });
});

describe('characters, not bytes', () => {
  it('counts 60 Chinese characters as 60 (180 bytes)', () => {
    const f = facts('文'.repeat(60));
    expect(f.bytes).toBe(180);
    expect(f.chars).toBe(60);
    expect(triageUnmarked(f).verdict).toBe('almost_certainly_partial');
  });

  it('puts the threshold at 100 characters', () => {
    expect(triageUnmarked(facts(`${'字'.repeat(98)}。`)).verdict).toBe('almost_certainly_partial');
    expect(triageUnmarked(facts(`${'字'.repeat(99)}。`)).verdict).toBe('maybe_complete');
  });

  it('counts astral characters once', () => {
    expect(countChars(Buffer.from('😀a文'))).toBe(3);
    expect(facts('😀a文').chars).toBe(3);
  });
});

describe('triage of unmarked files', () => {
  const long = `# Title\n\n${prose(300)}\n\n`;
  it('names the sign of truncation it saw', () => {
    expect(truncationSign(`${long}\`\`\`sql\nSELECT 1`, true)).toContain('code fence');
    expect(facts(`${long}\`\`\`sql\nSELECT *\nFROM t;\n`).fenceOpen).toBe(true);
    expect(triageUnmarked(facts(`${long}## Next section\n`)).reason).toContain('heading');
    expect(triageUnmarked(facts(`${long}- first\n- \n`)).reason).toContain('empty list item');
    expect(triageUnmarked(facts(`${long}B-tree 的每个节点都对应一个页，`)).reason).toContain('mid-sentence');
    expect(triageUnmarked(facts(`${long}The pager writes each page to the`)).verdict).toBe('truncated');
    // Endings that are complete, though they lack sentence punctuation:
    expect(triageUnmarked(facts(`${long}- see Appendix A\n`)).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts(`${long}- 本章到此结束了\n`)).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts(`${long}| a | b |\n| 1 | 2\n`)).verdict).toBe('maybe_complete');
    expect(triageUnmarked(facts(`${long}全文完。\n\n---\n`)).verdict).toBe('maybe_complete');
  });

  it('calls a cleanly ending file maybe_complete and says what is missing', () => {
    const t = triageUnmarked(facts(`${long}全文完。\n`));
    expect(t.verdict).toBe('maybe_complete');
    expect(t.reason).toContain('only the marker is missing');
  });

  it('treats binary content as a half-product with a clear reason', () => {
    const t = triageUnmarked(facts(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2, ...Buffer.from(prose(200))])));
    expect(t.verdict).toBe('almost_certainly_partial');
    expect(t.reason).toContain('binary');
  });
});

describe('workspace edge cases', () => {
  it('flags a marker on a body far too small to be real work (cause 3)', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'research/ch01-research.md': marked('# R\n\nTODO', 'RESEARCH_COMPLETE') });
    const s = await loadWorkspace(root);
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'research')!.status).toBe('done');
    expect(s.suspects).toHaveLength(1);
    expect(s.suspects[0]).toMatchObject({ verdict: 'suspicious', path: 'research/ch01-research.md' });
  });

  it('rebuilds everything from the disk when checkpoint.md is gone (scenario 4)', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'research/ch02-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE'), 'drafts/ch02-draft.md': `# D\n\n${prose(300)}` });
    const s = await loadWorkspace(root);
    expect(s.checkpoint.exists).toBe(false);
    expect(s.units).toEqual(['ch02']);
    expect(s.discrepancies).toEqual([]);
    expect(s.next[0]).toMatchObject({ priority: 2, unit: 'ch02', step: 'draft', action: 'decide' });
  });

  it('asks to rebuild a missing long-memory file once chapter work has started (scenario 3)', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'research/ch01-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE') });
    const s = await loadWorkspace(root);
    expect(s.phases[1]).toMatchObject({ id: 2, missing: ['meta/chapter-summaries.md'] });
    expect(s.next[0]).toMatchObject({ priority: 1, action: 'rebuild_memory' });
  });

  it('survives a file that is a directory and a file that vanishes', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'research/ch01-research.md/inner.txt': 'x' });
    const s = await loadWorkspace(root);
    const c = s.cells.find((x) => x.unit === 'ch01' && x.step === 'research')!;
    // Not a half-product to back up and redo: something a human must look at.
    expect(c.status).toBe('needs_human');
    expect(c.disk).toBe('unreadable');
    expect(c.triage).toBeNull();
    expect(c.error).toBe('not a regular file');
    expect(s.partials.map((p) => p.path)).not.toContain('research/ch01-research.md');
    expect(s.warnings.map((w) => w.message).join('\n')).toContain('research/ch01-research.md: not a regular file');
    expect(s.next.find((n) => n.unit === 'ch01' && n.step === 'research')).toMatchObject({ priority: 1, action: 'human_review' });
    expect(s.next.find((n) => n.unit === 'ch01' && n.step === 'research')!.reason).toContain('cannot be read (not a regular file)');
    expect(readFileFacts(join(root, 'gone.md'), 'gone.md', 'X').exists).toBe(false);
  });
});

describe('a file checkroom cannot read', () => {
  it('keeps its checkpoint claim when checkpoint.md is rebuilt from the disk', async () => {
    const root = tempDir();
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]) });
    await rewriteCheckpoint(root);
    const claimed = async () => claimsOf(parseCheckpoint(readFileSync(join(root, 'checkpoint.md'), 'utf8'), (await loadWorkspace(root)).pipeline)).get('ch01/research');
    expect(await claimed()).toBe('done');
    // The research file becomes something it cannot read (a directory under its name).
    rmSync(join(root, 'research/ch01-research.md'));
    writeFiles(root, { 'research/ch01-research.md/inner.txt': 'x' });
    const s = await loadWorkspace(root);
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.disk).toBe('unreadable');
    expect(s.discrepancies).toEqual([]);
    await rewriteCheckpoint(root);
    expect(await claimed()).toBe('done');
  });
});

describe('matrix column headings', () => {
  it('keep three characters and stay unique where ids share a prefix', async () => {
    const { columnLabels } = await import('../../../src/text/layout.js');
    expect(columnLabels(['research', 'draft', 'r1', 'review'])).toEqual(['res', 'dra', 'r1', 'rev']);
    expect(columnLabels(['s00', 's00.1', 's04', 's04.5'])).toEqual(['s00', '0.1', 's04', '4.5']);
  });
});

describe('review findings', () => {
  it('never plans launchable work before its dependencies are done', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'checkpoint.md': '# B — Progress Checkpoint\n\n### Batch 1\n| Chapter | Research | Draft |\n|---|---|---|\n| ch01 | — | ❌ |\n',
      // a cut-off merged review while its inputs are not done
      'research/ch02-research.md': marked(`# R\n\n${prose(300)}`, 'RESEARCH_COMPLETE'),
      'drafts/ch02-draft.md': marked(`# D\n\n${prose(300)}`, 'DRAFT_COMPLETE'),
      'reviews/ch02-review.md': '# Merged review\n\nonly a start',
    });
    const s = await loadWorkspace(root);
    const draft = s.next.find((n) => n.unit === 'ch01' && n.step === 'draft')!;
    expect(draft.action).toBe('human_review');
    expect(draft.reason).toContain('first needs research');
    expect(s.next.find((n) => n.unit === 'ch02' && n.step === 'review')!.action).toBe('decide');
  });

  it('keeps the modification time of finished files', () => {
    const f = facts(`${prose(300)}\n<!-- DRAFT_COMPLETE -->\n`);
    expect(f.marker).toBe(true);
    expect(f.mtimeMs).toBeGreaterThan(0);
  });

  it('does not call a large file truncated for a code block that starts before its tail', () => {
    const block = `${prose(2000)}\n\n\`\`\`js\n${'const x = 1;\n'.repeat(800)}\`\`\`\n\n`;
    const f = facts(`${block.repeat(40)}全文完。\n`);
    expect(f.bytes).toBeGreaterThan(256 * 1024);
    expect(triageUnmarked(f).verdict).toBe('maybe_complete');
  });
});
