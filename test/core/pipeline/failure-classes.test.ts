import { describe, expect, it } from 'vitest';
import { BUILT_IN_CLASSES, FAILURE_CLASS_TABLE, classesFrom, type FailureClassRow } from '../../../src/pipeline/failure-classes.js';
import { DEFAULT_CAPS, FAILURE_CLASSES, capsSchemaOf } from '../../../src/pipeline/schema.js';
import { parseConfig } from '../../../src/pipeline/config/config.js';
import { CLASS_INFO, NEVER_RETRY_UNCHANGED, RETRYABLE, classifierFor, classifyOutcome } from '../../../src/run/policy/classify.js';
import { decideNextWith, mergeCapsWith, strategyTable, strategyTableWith, type AttemptRecord } from '../../../src/run/policy/policy.js';
import { honourDelay } from '../../../src/run/supervisor/agent.js';
import { emptyFacts } from '../../../src/run/adapters/index.js';
import { classifyGate } from '../../../src/gates/gate-file.js';
import type { ProcessOutcome } from '../../../src/run/types.js';

// Issue 9 item 2: the failure classes are one table. Every set and record the runner, the
// config and the gates use derives from its rows, and a new class is one row more.

const outcome = (tail: string[], exitCode = 1): ProcessOutcome => ({
  runId: 'r1',
  exitCode,
  signal: null,
  spawnError: null,
  stalled: false,
  timedOut: false,
  cancelled: false,
  tail,
  startedAt: 0,
  endedAt: 1000,
  bytesOut: 0,
});

const rows: readonly FailureClassRow[] = FAILURE_CLASS_TABLE;

describe('the failure-class table', () => {
  it('every exported set and record equals what its rows say', () => {
    const names = rows.map((r) => r.name);
    expect(FAILURE_CLASSES).toEqual(names);
    expect(Object.keys(DEFAULT_CAPS)).toEqual(names);
    for (const r of rows) expect(DEFAULT_CAPS[r.name as keyof typeof DEFAULT_CAPS]).toBe(r.cap);
    expect([...RETRYABLE].sort()).toEqual(
      rows
        .filter((r) => r.retry === 'unchanged')
        .map((r) => r.name)
        .sort(),
    );
    expect([...NEVER_RETRY_UNCHANGED].sort()).toEqual(
      rows
        .filter((r) => r.retry === 'never')
        .map((r) => r.name)
        .sort(),
    );
    expect(Object.keys(CLASS_INFO)).toEqual(names);
    for (const r of rows) {
      const info = CLASS_INFO[r.name as keyof typeof CLASS_INFO];
      expect(info).toEqual({ class: r.name, ...r.help, retryable: r.retry === 'unchanged' });
    }
    expect(strategyTable().map((s) => [s.class, s.cap])).toEqual(rows.map((r) => [r.name, r.retry === 'never' ? 0 : r.cap]));
    // The signs the classifier tries are exactly the rows' signs, in their order.
    const signed = rows.filter((r) => r.sign).sort((a, b) => a.sign!.order - b.sign!.order);
    expect(BUILT_IN_CLASSES.signs.map((s) => s.class)).toEqual(signed.map((r) => r.name));
    expect(BUILT_IN_CLASSES.gateSigns.map((s) => s.class)).toEqual(rows.filter((r) => r.gateSign).map((r) => r.name));
  });

  it('the built-in signs keep their order: the cheapest transient recovery wins a mixture', () => {
    expect(BUILT_IN_CLASSES.signs.map((s) => s.class)).toEqual([
      'RATE_LIMITED',
      'OVERLOADED',
      'NETWORK',
      'CONTEXT_EXHAUSTED',
      'PERMISSION',
      'TOOL_NOT_FOUND',
      'INVALID_INPUT',
      'BROKEN_BUILD',
      'OOM_KILLED',
    ]);
    expect(classifyOutcome(outcome(['429 from the API: permission denied']), { markerFound: false, rules: [] })).toBe('RATE_LIMITED');
  });

  it('a table whose names repeat, or that is empty, is refused', () => {
    expect(() => classesFrom([...FAILURE_CLASS_TABLE, FAILURE_CLASS_TABLE[0]])).toThrow(/listed twice/);
    expect(() => classesFrom([])).toThrow(/at least one row/);
  });

  it('a gate is classed by the rows that carry a gate sign', () => {
    const gate = (errors: string[]) => ({ file: 'g.json', agent: 'a', shape: 'status' as const, passed: false, skipped: false, errors, timestamp: null });
    expect(classifyGate(gate(['SyntaxError: unexpected token']))).toBe('BROKEN_BUILD');
    expect(classifyGate(gate(['max length exceeded']))).toBe('CONTEXT_EXHAUSTED');
    expect(classifyGate(gate(['chapter 3 is too short']))).toBe('VERIFICATION_FAILED');
  });
});

describe('adding a failure class is one row', () => {
  const QUOTA = {
    name: 'QUOTA_EXCEEDED',
    cap: 5,
    retry: 'unchanged',
    sign: { order: 0, test: (t: string) => /quota exceeded/i.test(t) },
    help: { signs: 'quota exceeded', recovery: 'wait for the quota window, retry unchanged', then: 'escalate to whoever pays' },
  } as const satisfies FailureClassRow;
  const extended = classesFrom([...FAILURE_CLASS_TABLE, QUOTA]);
  const rec = (attempt: number): AttemptRecord<'QUOTA_EXCEEDED'> => ({
    attempt,
    class: 'QUOTA_EXCEEDED',
    cmdFp: 'c',
    errFp: 'e',
    keywords: ['quota', 'exceeded'],
    at: attempt,
  });

  it('is classified from its sign, before the built-in signs when its order says so', () => {
    const classify = classifierFor(extended);
    expect(classify(outcome(['Error: quota exceeded (429)']), { markerFound: false, rules: [] })).toBe('QUOTA_EXCEEDED');
    // The built-in table knows no such class: the same text is a rate limit there.
    expect(classifyOutcome(outcome(['Error: quota exceeded (429)']), { markerFound: false, rules: [] })).toBe('RATE_LIMITED');
    expect(classify(outcome(['ECONNRESET']), { markerFound: false, rules: [] })).toBe('NETWORK');
  });

  it('gets its cap, is retried unchanged with backoff under it, then escalates with its own words', () => {
    expect(mergeCapsWith(extended)().QUOTA_EXCEEDED).toBe(5);
    expect(extended.retryable.has('QUOTA_EXCEEDED')).toBe(true);
    const decide = decideNextWith(extended);
    const limits = { caps: {}, backoffBaseMs: 1000, backoffMaxMs: 60_000 };
    const four = [1, 2, 3, 4].map(rec);
    // A retryable class is never re-classed as a loop, however alike its attempts are.
    // Issue 17 item 5: cap 5 is five attempts in all (it was five retries, six attempts).
    expect(decide(four, limits, () => 0.5)).toMatchObject({ kind: 'retry', class: 'QUOTA_EXCEEDED', attempt: 5, maxAttempts: 5, delayMs: 6_000 });
    expect(decide([...four, rec(5)], limits, () => 0.5)).toEqual({
      kind: 'escalate',
      class: 'QUOTA_EXCEEDED',
      reason: 'QUOTA_EXCEEDED: 5 failed attempts, cap 5 attempts; escalate to whoever pays',
      maxAttempts: 5,
    });
    expect(decide([rec(1), rec(2)], { ...limits, caps: { QUOTA_EXCEEDED: 1 } }, () => 0.5)).toMatchObject({ kind: 'escalate' });
  });

  it("appears in the strategy table and is accepted in a config's caps", () => {
    const row = strategyTableWith(extended)({ QUOTA_EXCEEDED: 2 }).at(-1);
    expect(row).toEqual({ class: 'QUOTA_EXCEEDED', ...QUOTA.help, retryable: true, cap: 2 });
    expect(capsSchemaOf(extended).safeParse({ QUOTA_EXCEEDED: 2, UNKNOWN: 1 }).success).toBe(true);
    expect(capsSchemaOf(BUILT_IN_CLASSES).safeParse({ QUOTA_EXCEEDED: 2 }).success).toBe(false);
    // The built-in config refuses the unknown class, and says which classes it knows.
    expect(() => parseConfig('limits:\n  caps: { QUOTA_EXCEEDED: 2 }\n', 'checkroom.yaml')).toThrow(/QUOTA_EXCEEDED/);
  });

  it('a retryable row also honours the retry delay the stream asked for', () => {
    const facts = { ...emptyFacts(), retryDelayMs: 30_000 };
    expect(honourDelay('RATE_LIMITED', 1000, facts)).toBe(30_000);
    expect(honourDelay('UNKNOWN', 1000, facts)).toBe(1000);
  });
});
