import { describe, expect, it } from 'vitest';
import { MAX_QUOTA_WAIT_MS, resetOfLine, resetOfLines } from '../../../../src/run/quota/reset.js';

// Reset times read from lines in the formats the agent CLIs and HTTP APIs really print
// (docs/quota.md): Claude Code's usage-limit messages as its users quote them, HTTP headers
// as a log prints them, Google's RetryInfo. The clock and the zone are fixed.

const NOW = Date.parse('2026-12-02T13:10:00Z');
const iso = (line: string, now = NOW): string | null => {
  const r = resetOfLine(line, now, 'UTC');
  return r ? new Date(r.until).toISOString() : null;
};

describe('resetOfLine: Claude Code usage limits', () => {
  it('the machine form carries the epoch seconds', () => {
    expect(resetOfLine('Claude AI usage limit reached|1760000400', NOW)).toEqual({ until: 1760000400_000, source: 'usage-limit' });
    // As the stream-json result line carries it.
    const result = JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'Claude AI usage limit reached|1760000400', session_id: 's' });
    expect(resetOfLine(result, NOW)?.until).toBe(1760000400_000);
  });

  it('"5-hour limit reached ∙ resets 9pm" is today at 21:00 in the local zone (UTC here)', () => {
    expect(iso('5-hour limit reached ∙ resets 9pm')).toBe('2026-12-02T21:00:00.000Z');
  });

  it('a named zone is honoured: "resets 12:50am (America/Los_Angeles)" is the next 00:50 there', () => {
    // 13:10 UTC is 05:10 in Los Angeles (PST, UTC-8): the next 00:50 there is 08:50 UTC tomorrow.
    expect(iso("You've hit your session limit · resets 12:50am (America/Los_Angeles)")).toBe('2026-12-03T08:50:00.000Z');
    // 13:10 UTC is 14:10 in Warsaw (CET): 17:00 there is 16:00 UTC today.
    expect(iso('Claude usage limit reached. Your limit will reset at 5pm (Europe/Warsaw).')).toBe('2026-12-02T16:00:00.000Z');
  });

  it('a time already past today is tomorrow’s', () => {
    expect(iso('5-hour limit reached ∙ resets 5am')).toBe('2026-12-03T05:00:00.000Z');
  });

  it('a weekly limit names its day', () => {
    expect(iso('Weekly limit reached ∙ resets Dec 9 at 10am')).toBe('2026-12-09T10:00:00.000Z');
  });

  it('the API spend limit names a date in UTC', () => {
    expect(iso('{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2027-01-01 at 00:00 UTC."}}')).toBe('2027-01-01T00:00:00.000Z');
  });
});

describe('resetOfLine: HTTP headers and Google RetryInfo', () => {
  it('retry-after in seconds counts from now', () => {
    expect(resetOfLine('< retry-after: 30', NOW)).toEqual({ until: NOW + 30_000, source: 'retry-after' });
    expect(resetOfLine('{"headers":{"retry-after":"12"}}', NOW)?.until).toBe(NOW + 12_000);
  });

  it('retry-after as an HTTP date', () => {
    expect(iso('Retry-After: Wed, 02 Dec 2026 14:00:00 GMT')).toBe('2026-12-02T14:00:00.000Z');
  });

  it('anthropic-ratelimit-*-reset in RFC 3339; the latest of several', () => {
    expect(iso('anthropic-ratelimit-requests-reset: 2026-12-02T13:11:00Z')).toBe('2026-12-02T13:11:00.000Z');
    const both = '{"anthropic-ratelimit-requests-reset":"2026-12-02T13:11:00Z","anthropic-ratelimit-tokens-reset":"2026-12-02T13:15:30+00:00"}';
    expect(resetOfLine(both, NOW)).toEqual({ until: Date.parse('2026-12-02T13:15:30Z'), source: 'ratelimit-reset' });
  });

  it('Google RetryInfo and Gemini CLI words', () => {
    expect(resetOfLine('        "retryDelay": "34s"', NOW)).toEqual({ until: NOW + 34_000, source: 'retry-delay' });
    expect(resetOfLine('Quota exceeded for quota metric. Please retry in 5.5s.', NOW)?.until).toBe(NOW + 5500);
  });

  it('lines that only look alike say nothing', () => {
    for (const l of ['resets 3pm', 'the limit will be lifted soon', 'rate limited', 'retry-after:', '"retryDelay": "soon"', 'x'.repeat(100_000)]) expect(resetOfLine(l, NOW)).toBeNull();
  });
});

describe('resetOfLines', () => {
  it('takes the latest reset still ahead; the past and the unbelievable are ignored', () => {
    const lines = ['retry-after: 5', 'Claude AI usage limit reached|1700000000', 'Claude AI usage limit reached|' + Math.floor((NOW + 60_000) / 1000), `retry-after: ${MAX_QUOTA_WAIT_MS / 1000 + 60}`];
    expect(resetOfLines(lines, NOW)).toEqual({ until: NOW + 60_000, source: 'usage-limit' });
    expect(resetOfLines(['Claude AI usage limit reached|1700000000'], NOW)).toBeNull();
  });
});
