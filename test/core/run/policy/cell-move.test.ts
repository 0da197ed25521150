import { describe, expect, it } from 'vitest';
import { FAILURE_CLASS_TABLE } from '../../../../src/pipeline/failure-classes.js';
import type { FailureClass } from '../../../../src/pipeline/config/types.js';
import type { AttemptClass } from '../../../../src/run/policy/classify.js';
import type { AttemptRecord } from '../../../../src/run/policy/policy.js';
import type { RetryStop } from '../../../../src/run/policy/retry-stop.js';
import { nextMove, stopAfterBackoff, stopAfterBreaker, stopEffect, stopWords, type MoveInput } from '../../../../src/run/attempt/cell-move.js';

// Issue 9 item 3: what a cell does after one attempt is a pure function of plain values — no
// process, no journal, no clock. The stop reason is a value whose kind says what follows.

const limits = { caps: {}, backoffBaseMs: 1000, backoffMaxMs: 60_000 };
let n = 0;
/** A failure with its own error and unrelated words, unless told. */
const rec = (attempt: number, cls: AttemptClass, over: Partial<AttemptRecord> = {}): AttemptRecord => {
  n++;
  return { attempt, class: cls, cmdFp: 'cmd', errFp: `err${n}`, keywords: [`w${n}a`, `w${n}b`], at: attempt, ...over };
};
const failures = (cls: AttemptClass, count: number): AttemptRecord[] => Array.from({ length: count }, (_, i) => rec(i + 1, cls));
const input = (history: AttemptRecord[], over: Partial<MoveInput> = {}): MoveInput => ({
  cls: history[history.length - 1]?.class ?? 'SUCCESS',
  memoryLoss: null,
  history,
  limits,
  rand: () => 0.5,
  retryDelayMs: null,
  retryStop: null,
  ...over,
});

describe('nextMove', () => {
  it('a proven attempt is done', () => {
    expect(nextMove(input([rec(1, 'UNKNOWN'), rec(2, 'SUCCESS')]))).toEqual({ kind: 'done' });
  });

  it('an operator cancel stops the cell as cancelled, and counts nothing', () => {
    expect(nextMove(input([rec(1, 'UNKNOWN'), rec(2, 'CANCELLED')]))).toEqual({ kind: 'stop', reason: { kind: 'cancelled' } });
  });

  // Issue 17 item 5: a cap is the class's attempts in all (it was retries: maxAttempts 1 + cap).
  it.each(FAILURE_CLASS_TABLE.map((r) => [r.name, r.cap, r.retry] as const))('%s: one failure retries under cap %i attempts (%s), else escalates', (cls, cap, retry) => {
    const move = nextMove(input(failures(cls, 1)));
    if (retry === 'never' || cap <= 1) {
      expect(move).toMatchObject({ kind: 'stop', reason: { kind: 'escalated', class: cls } });
      return;
    }
    expect(move).toMatchObject({ kind: 'retry', class: cls, attempt: 2, maxAttempts: cap });
    // Retryable classes back off exponentially (equal jitter keeps half); the others wait the base.
    expect(move.kind === 'retry' && move.delayMs).toBe(retry === 'unchanged' ? 750 : 1000);
  });

  it('escalates once a class has used its cap, with the cap in the words', () => {
    expect(nextMove(input(failures('UNKNOWN', 1)))).toMatchObject({ kind: 'retry', attempt: 2, maxAttempts: 2 });
    expect(nextMove(input(failures('UNKNOWN', 2)))).toEqual({
      kind: 'stop',
      reason: { kind: 'escalated', class: 'UNKNOWN', reason: 'UNKNOWN: 2 failed attempts, cap 2 attempts; escalate', maxAttempts: 2 },
    });
    // A configured cap moves the line.
    expect(nextMove(input(failures('UNKNOWN', 2), { limits: { ...limits, caps: { UNKNOWN: 3 } } }))).toMatchObject({ kind: 'retry', attempt: 3, maxAttempts: 3 });
  });

  it('each class keeps its own budget: a rate limit does not eat the verification budget', () => {
    const h = [rec(1, 'VERIFICATION_FAILED'), rec(2, 'RATE_LIMITED'), rec(3, 'RATE_LIMITED'), rec(4, 'VERIFICATION_FAILED')];
    expect(nextMove(input(h))).toMatchObject({ kind: 'retry', class: 'VERIFICATION_FAILED' });
  });

  it('the same command with the same error three times is a circular fix: escalate at once', () => {
    const h = [1, 2, 3].map((a) => rec(a, 'UNKNOWN', { errFp: 'same', keywords: [] }));
    expect(nextMove(input(h))).toMatchObject({
      kind: 'stop',
      reason: { kind: 'escalated', class: 'CIRCULAR_FIX', reason: expect.stringMatching(/same command and same error 3 times/) },
    });
  });

  it('attempts too alike in their words are a circular fix too', () => {
    const words = ['missing', 'outline', 'chapter', 'three'];
    const h = [1, 2, 3].map((a) => rec(a, 'VERIFICATION_FAILED', { keywords: words }));
    expect(nextMove(input(h))).toMatchObject({ kind: 'stop', reason: { kind: 'escalated', class: 'CIRCULAR_FIX' } });
  });

  it('lost shared-memory entries escalate whatever the class, even a success', () => {
    const move = nextMove(input([rec(1, 'VERIFICATION_FAILED')], { memoryLoss: 'memory/notes.md lost 2 entries' }));
    expect(move).toEqual({ kind: 'stop', reason: { kind: 'memory_lost', reason: 'memory/notes.md lost 2 entries' } });
  });

  it('the consecutive-failure guard and a spent budget stop retries and pause autopilot; a closed supervisor or a used launch budget do not pause', () => {
    const stopFor = (retryStop: RetryStop) => nextMove(input(failures('UNKNOWN', 1), { retryStop }));
    expect(stopFor({ kind: 'consecutive', reason: '8 consecutive failures' })).toEqual({
      kind: 'stop',
      reason: { kind: 'retries_stopped', stop: { kind: 'consecutive', reason: '8 consecutive failures' }, pauses: true, maxAttempts: 2 },
    });
    expect(stopFor({ kind: 'spend', reason: 'spent $5.00 of $5.00' })).toMatchObject({ reason: { kind: 'retries_stopped', pauses: true } });
    expect(stopFor({ kind: 'closed', reason: 'the supervisor closed' })).toMatchObject({ reason: { kind: 'retries_stopped', pauses: false } });
    expect(stopFor({ kind: 'budget', reason: 'launch budget used' })).toMatchObject({ reason: { kind: 'retries_stopped', pauses: false } });
  });

  it('an escalation wins over a retry stop: the cell needs a human either way', () => {
    const move = nextMove(input(failures('PERMISSION', 1), { retryStop: { kind: 'consecutive', reason: 'x' } }));
    expect(move).toMatchObject({ kind: 'stop', reason: { kind: 'escalated', class: 'PERMISSION' } });
  });

  it('a retryable class waits at least what the stream asked for; other classes ignore it', () => {
    expect(nextMove(input(failures('RATE_LIMITED', 1), { retryDelayMs: 30_000.4 }))).toMatchObject({ kind: 'retry', delayMs: 30_000 });
    expect(nextMove(input(failures('UNKNOWN', 1), { retryDelayMs: 30_000 }))).toMatchObject({ kind: 'retry', delayMs: 1000 });
  });
});

describe('stops while waiting for the retry', () => {
  it('a backoff cut short is a cancel; a guard that tripped meanwhile stops without pausing again', () => {
    expect(stopAfterBackoff(false, null)).toEqual({ kind: 'cancelled' });
    expect(stopAfterBackoff(true, null)).toBeNull();
    expect(stopAfterBackoff(true, { kind: 'consecutive', reason: 'x' })).toEqual({
      kind: 'retries_stopped',
      stop: { kind: 'consecutive', reason: 'x' },
      pauses: false,
      maxAttempts: null,
    });
  });

  it('a breaker that will not let the retry through stops the cell; a cancel during the wait wins', () => {
    expect(stopAfterBreaker(false, 'writer', null)).toBeNull();
    expect(stopAfterBreaker(false, 'slurm:infra', 'breaker slurm:infra is held')).toEqual({
      kind: 'breaker',
      agent: 'slurm:infra',
      reason: 'breaker slurm:infra is held',
    });
    expect(stopAfterBreaker(true, 'writer', 'breaker writer is held')).toEqual({ kind: 'cancelled' });
  });
});

describe('what a stop does', () => {
  it('escalations claim ⚠️ and are journalled; the rest are ❌ or a cancel', () => {
    const esc = (cls: FailureClass) => ({ kind: 'escalated' as const, class: cls, reason: 'r' });
    // Reported as the escalation's class, not the attempt's own (issue 18 item 1: the event said UNKNOWN, Plan said CIRCULAR_FIX).
    expect(stopEffect(esc('CIRCULAR_FIX'))).toEqual({ claim: 'needs_human', escalate: 'CIRCULAR_FIX', reportAs: 'CIRCULAR_FIX' });
    expect(stopEffect({ kind: 'memory_lost', reason: 'r' })).toEqual({
      claim: 'needs_human',
      escalate: 'VERIFICATION_FAILED',
      reportAs: 'VERIFICATION_FAILED',
    });
    expect(stopEffect({ kind: 'cancelled' }).claim).toBe('cancelled');
    for (const s of [
      { kind: 'undecided', reason: 'r' },
      { kind: 'launch_budget', reason: 'r' },
      { kind: 'breaker', agent: 'a', reason: 'r' },
      { kind: 'retries_stopped', stop: { kind: 'budget', reason: 'r' }, pauses: false, maxAttempts: null },
    ] as const) {
      expect(stopEffect(s)).toEqual({ claim: 'failed', escalate: null, reportAs: null });
    }
  });

  it('says the stop in words from its value', () => {
    expect(stopWords({ kind: 'cancelled' })).toBe('cancelled by the operator');
    expect(stopWords({ kind: 'retries_stopped', stop: { kind: 'closed', reason: 'the supervisor closed' }, pauses: false, maxAttempts: null })).toBe(
      'retries stopped: the supervisor closed',
    );
    expect(stopWords({ kind: 'breaker', agent: 'a', reason: 'breaker a is held' })).toBe('breaker a is held');
  });
});
