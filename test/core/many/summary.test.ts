import { describe, expect, it } from 'vitest';
import { parseStatusDoc, summaryOf, type StatusDoc } from '../../../src/many/summary.js';
import { statusJson } from '../../../src/cli/json.js';
import { readSources, stateOf } from '../../../src/workspace.js';
import { copyDemo } from '../../helpers/workspace.js';

// docs/many.md: a workspace's line is derived from its `status --json` and nothing else; a
// remote's document is untrusted.

const doc = (over: Record<string, unknown> = {}, counts: Record<string, number> = {}) =>
  JSON.stringify({
    version: 1,
    workspace: '/w',
    name: 'Book',
    pipeline: 'book',
    currentPhase: 2,
    currentBatch: 3,
    counts: { total: 10, done: 4, partial: 1, failed: 0, needsHuman: 0, running: 0, pending: 0, waiting: 0, ...counts },
    regressions: [],
    discrepancies: [],
    cost_usd: 1.5,
    eta: null,
    forecast: null,
    quota: null,
    ...over,
  });

const ok = (raw: string): StatusDoc => {
  const r = parseStatusDoc(raw);
  if ('error' in r) throw new Error(r.error);
  return r.doc;
};

describe('summaryOf', () => {
  it('the counts are status --json\'s, for the demo read here (one derivation)', async () => {
    const src = await readSources(copyDemo());
    const d = statusJson(stateOf(src));
    const s = summaryOf(ok(JSON.stringify(d)));
    expect({ total: s.total, done: s.done, partial: s.partial, failed: s.failed }).toEqual({ total: d.counts.total, done: d.counts.done, partial: d.counts.partial, failed: d.counts.failed });
    expect(s.needsYou).toBe(d.counts.needsHuman);
    expect(s.alarms).toEqual([`${d.regressions.length} regressions`, `${d.discrepancies.length} discrepancies`]);
    expect(s.urgency).toBe('needs-you');
  });

  it.each([
    [{}, { needsHuman: 1 }, 'needs-you'],
    [{ eta: { pipeline: { eta: null }, needs_you: 2, text: '' } }, {}, 'needs-you'],
    [{}, { failed: 2 }, 'failing'],
    [{}, { pending: 1 }, 'running'],
    [{}, {}, 'idle'],
    [{}, { done: 10 }, 'done'],
  ])('urgency of %j %j: %s', (over, counts, urgency) => {
    expect(summaryOf(ok(doc(over, counts))).urgency).toBe(urgency);
  });

  it('a budget that runs out and quota waits are alarms; in flight counts queued and waiting cells', () => {
    const s = summaryOf(ok(doc({ forecast: { runs_out: { budget: 'limits.max_cost_usd' } }, quota: [{}] }, { running: 1, pending: 2, waiting: 3 })));
    expect(s.alarms).toEqual(['budget limits.max_cost_usd runs out', '1 quota wait']);
    expect(s.running).toBe(6);
  });
});

describe('parseStatusDoc: an untrusted document', () => {
  it('terminal controls in its text are escaped; overlong text is cut', () => {
    const s = summaryOf(ok(doc({ name: 'Book\u001b]0;pwned\u0007\u001b[2J' + 'x'.repeat(500) })));
    expect(s.name).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(s.name.startsWith('Book\\e]0;pwned\\a\\e[2J')).toBe(true);
    expect(s.name.length).toBeLessThanOrEqual(200);
  });

  it('a negative or non-number count reads 0; a wrong version or shape is an error saying so', () => {
    expect(summaryOf(ok(doc({}, { done: -5, failed: 'many' as unknown as number }))).done).toBe(0);
    expect(parseStatusDoc(doc({ version: 2 }))).toEqual({ error: expect.stringMatching(/not a status --json document \(version/) });
    expect(parseStatusDoc('<html>')).toEqual({ error: expect.stringMatching(/not JSON/) });
    expect(parseStatusDoc(doc({ counts: null }))).toEqual({ error: expect.stringMatching(/counts/) });
  });
});
