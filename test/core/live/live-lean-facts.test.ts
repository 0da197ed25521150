import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { keepLastLine } from '../../../src/live/lean-facts.js';
import { triageUnmarked } from '../../../src/triage/triage.js';
import type { FileFacts } from '../../../src/types.js';

// The live model keeps of an unmarked file's tail only its last non-blank line (issue 10
// goal: control room RSS at 50k ≤ 150 MB; ~16 MB of tails at 50k): the verdict read again
// from it must be the one the whole tail gives.

const factsOf = (tail: string, extra: Partial<FileFacts> = {}): FileFacts => ({
  path: 'drafts/ch01-draft.md',
  exists: true,
  bytes: 4000,
  chars: 3000,
  marker: false,
  markerNotLast: false,
  mtimeMs: 1,
  tail,
  fenceOpen: false,
  ...extra,
});

const LINES = ['The pager writes each dirty page to the journal before it changes.', '## Section 7', '- ', 'B-tree 的每个节点对应一个页，页的大小在创建数据库时确定。写入时的', 'and the', '<!-- DRAFT_COMPL', '---', '| a | b |', '', '   ', '\r', '\uFEFF', '　', 'It ends here.'];

describe('the live model keeps the last line of a tail', () => {
  it('cuts a long tail to its last non-blank line and what follows it', () => {
    const tail = `${'words '.repeat(200)}\nA line before.\nThe last line, cut mid\n\n  \n`;
    const kept = keepLastLine(factsOf(tail)).tail;
    expect(kept).toBe('The last line, cut mid\n\n  \n');
  });

  it('gives every tail the verdict of the whole one', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...LINES), { maxLength: 80 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), (lines, eol, fence) => {
        const tail = lines.join(eol);
        const whole = triageUnmarked(factsOf(tail, { fenceOpen: fence }));
        const lean = triageUnmarked(keepLastLine(factsOf(tail, { fenceOpen: fence })));
        expect(lean).toEqual(whole);
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });
});
