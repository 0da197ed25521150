import { describe, expect, it } from 'vitest';
import { loadWorkspace } from '../../src/workspace.js';
import { escapeJsonText, statusJson, statusJsonStreamed } from '../../src/cli/json.js';
import { JsonList } from '../../src/cli/json-list.js';
import { reindentJson, writeJson } from '../../src/cli/json-stream.js';
import { statusJsonText } from '../../src/cli/commands/core-commands.js';
import { copyDemo } from '../helpers/workspace.js';

// Issue 10 item 2: `status --json` is written as it is made (cells one at a time, 64 KB
// chunks) and must be exactly the text JSON.stringify gives the whole document.

const streamed = (v: unknown): string => {
  const parts: string[] = [];
  writeJson(v, { write: (s) => parts.push(s) });
  return parts.join('');
};

describe('streamed JSON', () => {
  it('status --json is the text of JSON.stringify over the whole document', async () => {
    const state = await loadWorkspace(copyDemo());
    const whole = escapeJsonText(JSON.stringify(statusJson(state))) + '\n';
    expect(statusJsonText(state)).toBe(whole);
    expect(streamed(statusJsonStreamed(state))).toBe(whole);
    // The lazy document is the same value wherever JSON.stringify meets it (pretty, tests).
    expect(JSON.stringify(statusJsonStreamed(state))).toBe(JSON.stringify(statusJson(state)));
    expect(reindentJson(whole)).toBe(`${escapeJsonText(JSON.stringify(statusJson(state), null, 2))}\n`);
  });

  it('escapes DEL, C1 and bidi controls across chunk boundaries; keeps JSON.stringify\'s holes and skips', () => {
    // ~200 KB of rows, each with controls, so several 64 KB chunks end next to one.
    const rows = Array.from({ length: 3000 }, (_, i) => ({ i, s: `row ${i} \u007f\u009b\u202e\u2066 ${'x'.repeat(40)}`, u: undefined, f: () => 1 }));
    const doc = { a: rows, b: new JsonList(rows, (r) => (r.i % 2 ? r.s : undefined)), c: [undefined, null, 1], d: undefined };
    const expected = escapeJsonText(JSON.stringify(doc)) + '\n';
    expect(expected).toContain('\\u009b');
    expect(streamed(doc)).toBe(expected);
    expect(streamed(doc)).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  });
});
