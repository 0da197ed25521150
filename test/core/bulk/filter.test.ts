import { describe, expect, it } from 'vitest';
import { BulkFilterError, parseRedrive } from '../../../src/bulk/filter.js';

// The redrive filter (docs/redrive.md, The filter): every term, and a clear error for a bad one.

const NOW = new Date(2026, 11, 2, 9, 30).getTime();
const at = (h: number, m: number, dayBack = 0): number => new Date(2026, 11, 2 - dayBack, h, m).getTime();

describe('parseRedrive', () => {
  it('reads every term of the example line', () => {
    const r = parseRedrive('class=RATE_LIMITED from=02:00 to=04:00 agent=writer step=draft units=ch03..ch07 batch=2..3 executor=slurm status=failed,escalated action=reset name=rate-limit-0200', NOW);
    expect(r.action).toBe('reset');
    expect(r.name).toBe('rate-limit-0200');
    expect([...r.filter.classes!]).toEqual(['RATE_LIMITED']);
    expect([...r.filter.agents!]).toEqual(['writer']);
    expect([...r.filter.steps!]).toEqual(['draft']);
    expect([...r.filter.executors!]).toEqual(['slurm']);
    expect([...r.filter.statuses!]).toEqual(['failed', 'escalated']);
    expect([...r.filter.batches!]).toEqual([2, 3]);
    expect(r.filter.units).toEqual({ names: new Set(), ranges: [{ from: 'ch03', to: 'ch07' }] });
    expect(r.filter.from).toBe(at(2, 0));
    expect(r.filter.to).toBe(at(4, 0));
    // The record keeps the filter, not the action or the name.
    expect(r.text).toBe('class=RATE_LIMITED from=02:00 to=04:00 agent=writer step=draft units=ch03..ch07 batch=2..3 executor=slurm status=failed,escalated');
  });

  it('defaults to relaunch with no name; class is case-insensitive; since= is a start', () => {
    const r = parseRedrive('class=rate_limited,infra since=2h', NOW);
    expect(r.action).toBe('relaunch');
    expect(r.name).toBeNull();
    expect([...r.filter.classes!]).toEqual(['RATE_LIMITED', 'INFRA']);
    expect(r.filter.from).toBe(NOW - 2 * 3_600_000);
    expect(r.filter.to).toBeNull();
  });

  it('a window across midnight: to= is the time after from=', () => {
    const r = parseRedrive('from=23:00 to=01:00', NOW);
    expect(r.filter.from).toBe(at(23, 0, 1));
    expect(r.filter.to).toBe(at(1, 0));
  });

  it.each([
    ['', /no filter: name the cells to redrive \(e\.g\. class=RATE_LIMITED/],
    ['action=reset', /no filter/],
    ['klass=RATE_LIMITED', /"klass=RATE_LIMITED" is not a filter term: write key=value with key one of status, class/],
    ['class=RATELIMIT', /class=RATELIMIT is not a failure class: write one of .*RATE_LIMITED/],
    ['status=broken', /status=broken is not a status: write one of failed, escalated/],
    ['class=', /class= has no value/],
    ['units=ch03..', /units=ch03\.\. is not a unit or a range: write units=ch03 or units=ch03\.\.ch07/],
    ['batch=x', /batch=x is not a batch: write a number or a range/],
    ['batch=4..2', /runs backwards: write the lower batch first \(batch=2\.\.4\)/],
    ['from=yesterday', /from=yesterday: "yesterday" is not a moment: give a duration back/],
    ['agent=writer action=redo', /action=redo is not an action: write action=relaunch\|reset\|skip\|hold/],
    ['agent=writer name=a/b', /name=a\/b is not a name/],
    ['agent=writer,,editor', /agent= has an empty value/],
    ['from=2026-12-02T05:00 to=2026-12-02T04:00', /to= is before from=/],
  ])('"%s" is refused with what to write', (text, msg) => {
    expect(() => parseRedrive(text, NOW)).toThrow(BulkFilterError);
    expect(() => parseRedrive(text, NOW)).toThrow(msg);
  });
});
