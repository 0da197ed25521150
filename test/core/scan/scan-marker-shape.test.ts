import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileFacts } from '../../../src/scan/file-facts.js';
import { markerShape } from '../../../src/scan/marker.js';
import { triageUnmarked } from '../../../src/triage/triage.js';
import { say } from '../../../src/reasons/say.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { tempDir, writeFiles, PHASE_1_2, prose, summaries } from '../../helpers/workspace.js';

// Issue 8 item 6: a marker-shaped last line that is not the step's marker gets its own
// reason, never "only the marker is missing: keep".

const body = `# Review\n\n${prose(300)}\n\n`;
const triage = (content: string, marker = 'REVIEW_COMPLETE') => {
  const root = tempDir();
  writeFileSync(join(root, 'f.md'), content);
  return triageUnmarked(readFileFacts(join(root, 'f.md'), 'f.md', marker));
};

describe('marker-shaped lines (issue 8 item 6)', () => {
  const cases: [string, string, RegExp][] = [
    ['another step’s marker', `${body}<!-- R1_CODE_REVIEW_COMPLETE -->\n`, /another marker .*not this step's <!-- REVIEW_COMPLETE -->/],
    ['the marker inline at the end of prose', `${body}All three reviews agree. <!-- REVIEW_COMPLETE -->\n`, /end of a prose line/],
    ['a lower-case marker', `${body}<!-- review_complete -->\n`, /wrong case/],
    ['a marker missing its comment brackets', `${body}REVIEW_COMPLETE\n`, /without its comment brackets/],
    ['a marker missing its closing bracket', `${body}<!-- REVIEW_COMPLETE\n`, /without its comment brackets/],
  ];
  for (const [name, content, re] of cases) {
    it(`explains ${name}, and never as "only the marker is missing"`, () => {
      const t = triage(content);
      expect(t.verdict).toBe('maybe_complete');
      expect(t.reason).toMatch(re);
      expect(t.reason).not.toContain('only the marker is missing');
      expect(t.why?.k).toBe('marker_shaped');
      for (const lang of ['zh', 'ja'] as const) {
        const s = say(t.why!, lang);
        expect(s).toContain('REVIEW_COMPLETE');
        expect(s).not.toMatch(/只缺标记|マーカーだけがない/);
      }
    });
  }

  it('says each shape in Chinese and Japanese in its own words', () => {
    const shapes = cases.map(([, c]) => triage(c).why!);
    expect(new Set(shapes.map((w) => say(w, 'zh'))).size).toBe(shapes.length);
    expect(new Set(shapes.map((w) => say(w, 'ja'))).size).toBe(shapes.length);
    expect(say(shapes[2], 'zh')).toContain('大小写');
    expect(say(shapes[2], 'ja')).toContain('大文字');
  });

  it('leaves ordinary endings alone', () => {
    expect(markerShape('<!-- REVIEW_COMPLETE -->', 'REVIEW_COMPLETE')).toBeNull();
    expect(markerShape('The review is complete.', 'REVIEW_COMPLETE')).toBeNull();
    expect(markerShape('<!-- a note for the editor -->', 'REVIEW_COMPLETE')).toBeNull();
    expect(triage(`${body}全文完。\n`).reason).toContain('only the marker is missing');
  });

  it('still calls a short marker-shaped file a half-product', () => {
    expect(triage('# R\n\n<!-- review_complete -->\n').verdict).toBe('almost_certainly_partial');
  });

  it('reaches the partials list of a workspace with its own reason', async () => {
    const root = tempDir();
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'research/ch01-research.md': `${body}<!-- research_complete -->\n`,
    });
    const s = await loadWorkspace(root);
    const p = s.partials.find((x) => x.path === 'research/ch01-research.md')!;
    expect(p.reason).toContain('wrong case');
    expect(p.reason).not.toContain('only the marker is missing');
  });
});
