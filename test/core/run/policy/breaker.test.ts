import { describe, expect, it } from 'vitest';
import { breakerInit, breakerReduce, breakerView, canLaunch, cooldownFor, type BreakerEvent, type BreakerState } from '../../../../src/run/policy/breaker.js';

const cfg = { threshold: 3, cooldownMs: 10_000, maxCooldownMs: 35_000 };

/** A tiny injected clock: the test moves time, nothing reads the wall clock. */
const clock = () => {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

const apply = (s: BreakerState, ...events: BreakerEvent[]) => events.reduce((acc, e) => breakerReduce(acc, e, cfg), s);

describe('breaker', () => {
  it('opens after threshold consecutive failures, not before', () => {
    const c = clock();
    let s = breakerInit();
    s = apply(s, { type: 'failure', at: c.now(), summary: 'RATE_LIMITED: 429' }, { type: 'failure', at: c.now() });
    expect(breakerView(s, c.now(), cfg).state).toBe('closed');
    expect(canLaunch(s, c.now(), cfg)).toBe(true);
    s = apply(s, { type: 'success', at: c.now() }, { type: 'failure', at: c.now() }, { type: 'failure', at: c.now() });
    expect(breakerView(s, c.now(), cfg).consecutiveFailures).toBe(2);
    s = apply(s, { type: 'failure', at: c.now(), summary: 'NETWORK: ECONNRESET' });
    const v = breakerView(s, c.now(), cfg);
    expect(v).toMatchObject({ state: 'open', remainingMs: 10_000, trips: 1, consecutiveFailures: 3 });
    expect(v.openedBy).toEqual(['NETWORK: ECONNRESET']);
    expect(canLaunch(s, c.now(), cfg)).toBe(false);
  });

  it('open → half-open for exactly one probe → closed on success', () => {
    const c = clock();
    let s = apply(breakerInit(), ...[1, 2, 3].map(() => ({ type: 'failure' as const, at: c.now() })));
    c.advance(9_999);
    expect(breakerView(s, c.now(), cfg)).toMatchObject({ state: 'open', remainingMs: 1 });
    c.advance(1);
    expect(breakerView(s, c.now(), cfg).state).toBe('half_open');
    expect(canLaunch(s, c.now(), cfg)).toBe(true);
    s = apply(s, { type: 'launch', at: c.now() });
    expect(canLaunch(s, c.now(), cfg)).toBe(false);
    c.advance(5_000);
    s = apply(s, { type: 'success', at: c.now() });
    expect(breakerView(s, c.now(), cfg)).toMatchObject({ state: 'closed', trips: 0, consecutiveFailures: 0 });
    expect(canLaunch(s, c.now(), cfg)).toBe(true);
  });

  it('a failed probe re-opens with a growing, capped cooldown', () => {
    const c = clock();
    let s = apply(breakerInit(), ...[1, 2, 3].map(() => ({ type: 'failure' as const, at: c.now() })));
    const cooldowns: number[] = [breakerView(s, c.now(), cfg).remainingMs];
    for (let i = 0; i < 3; i++) {
      c.advance(cooldowns[cooldowns.length - 1]);
      expect(breakerView(s, c.now(), cfg).state).toBe('half_open');
      s = apply(s, { type: 'launch', at: c.now() }, { type: 'failure', at: c.now() });
      const v = breakerView(s, c.now(), cfg);
      expect(v.state).toBe('open');
      cooldowns.push(v.remainingMs);
    }
    expect(cooldowns).toEqual([10_000, 20_000, 35_000, 35_000]);
    expect(breakerView(s, c.now(), cfg).trips).toBe(4);
    expect(cooldownFor(1, cfg)).toBe(10_000);
  });

  it('failures of runs already in flight while open do not extend the cooldown', () => {
    const c = clock();
    let s = apply(breakerInit(), ...[1, 2, 3].map(() => ({ type: 'failure' as const, at: c.now() })));
    c.advance(4_000);
    s = apply(s, { type: 'failure', at: c.now() }, { type: 'success', at: c.now() });
    expect(breakerView(s, c.now(), cfg)).toMatchObject({ state: 'open', remainingMs: 6_000, trips: 1 });
  });

  it('an abandoned probe frees the probe slot', () => {
    const c = clock();
    let s = apply(breakerInit(), ...[1, 2, 3].map(() => ({ type: 'failure' as const, at: c.now() })));
    c.advance(10_000);
    s = apply(s, { type: 'launch', at: c.now() });
    expect(canLaunch(s, c.now(), cfg)).toBe(false);
    s = apply(s, { type: 'abandon', at: c.now() });
    expect(canLaunch(s, c.now(), cfg)).toBe(true);
  });

  it('hold keeps it open until release; reset closes and forgets', () => {
    const c = clock();
    let s = apply(breakerInit(), { type: 'hold', at: c.now() });
    c.advance(10 * 60_000);
    expect(breakerView(s, c.now(), cfg).state).toBe('held');
    expect(canLaunch(s, c.now(), cfg)).toBe(false);
    s = apply(s, { type: 'success', at: c.now() });
    expect(breakerView(s, c.now(), cfg).state).toBe('held');
    s = apply(s, { type: 'release', at: c.now() });
    expect(canLaunch(s, c.now(), cfg)).toBe(true);

    s = apply(s, ...[1, 2, 3].map(() => ({ type: 'failure' as const, at: c.now() })));
    expect(canLaunch(s, c.now(), cfg)).toBe(false);
    s = apply(s, { type: 'reset', at: c.now() });
    expect(breakerView(s, c.now(), cfg)).toMatchObject({ state: 'closed', trips: 0, consecutiveFailures: 0, openedBy: [] });
  });

  it('is pure: reducing does not mutate the previous state', () => {
    const s0 = breakerInit();
    const snapshot = JSON.stringify(s0);
    breakerReduce(s0, { type: 'failure', at: 1, summary: 'x' }, { ...cfg, threshold: 1 });
    expect(JSON.stringify(s0)).toBe(snapshot);
  });
});
