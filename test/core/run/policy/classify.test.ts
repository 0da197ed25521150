import { describe, expect, it } from 'vitest';
import { CLASS_INFO, NEVER_RETRY_UNCHANGED, RETRYABLE, classifyOutcome, type AttemptClass } from '../../../../src/run/policy/classify.js';
import type { FailureClass, FailureRule } from '../../../../src/pipeline/config/types.js';
import type { ProcessOutcome } from '../../../../src/run/types.js';

const outcome = (over: Partial<ProcessOutcome> = {}): ProcessOutcome => ({
  runId: 'r1',
  exitCode: 1,
  signal: null,
  spawnError: null,
  stalled: false,
  timedOut: false,
  cancelled: false,
  tail: [],
  startedAt: 0,
  endedAt: 1000,
  bytesOut: 0,
  ...over,
});

const noRules = { markerFound: false, rules: [] as FailureRule[] };

describe('classifyOutcome: process facts before text', () => {
  const cases: [string, Partial<ProcessOutcome>, boolean, AttemptClass][] = [
    ['exit 0 with marker', { exitCode: 0 }, true, 'SUCCESS'],
    ['a cancel that raced a finished, marked run is still a success', { exitCode: 0, cancelled: true }, true, 'SUCCESS'],
    ['operator cancel of a run that exited 0 without marker', { exitCode: 0, cancelled: true }, false, 'CANCELLED'],
    ['cancel with a 429 in the tail', { cancelled: true, exitCode: null, signal: 'SIGTERM', tail: ['429 Too Many Requests'] }, false, 'CANCELLED'],
    ['idle watchdog', { stalled: true, exitCode: null, signal: 'SIGKILL' }, false, 'STALLED'],
    ['overall timeout', { timedOut: true, exitCode: null, signal: 'SIGTERM' }, false, 'STALLED'],
    ['spawn ENOENT', { spawnError: 'ENOENT', exitCode: null }, false, 'TOOL_NOT_FOUND'],
    ['spawn EACCES', { spawnError: 'EACCES', exitCode: null }, false, 'PERMISSION'],
    ['exit 0 without marker', { exitCode: 0, tail: ['wrote 3 paragraphs'] }, false, 'VERIFICATION_FAILED'],
    ['exit 0 without marker, 429 text ignored', { exitCode: 0, tail: ['retrying after 429'] }, false, 'VERIFICATION_FAILED'],
  ];
  it.each(cases)('%s', (_name, over, markerFound, expected) => {
    expect(classifyOutcome(outcome(over), { markerFound, rules: [] })).toBe(expected);
  });
});

describe('classifyOutcome: built-in signs on realistic tails', () => {
  const cases: [FailureClass, string[], number?][] = [
    ['RATE_LIMITED', ['Error: 429 Too Many Requests — rate limit exceeded, retry after 2s']],
    ['RATE_LIMITED', ['anthropic.RateLimitError: rate_limit_error']],
    ['OVERLOADED', ['529 Overloaded']],
    ['OVERLOADED', ['HTTP 503 Service Unavailable']],
    ['OVERLOADED', ['The model is at capacity, try later']],
    ['NETWORK', ['Error: read ECONNRESET', '    at TLSWrap.onStreamRead (node:internal/stream_base_commons:217:20)']],
    ['NETWORK', ['FetchError: request to https://api.example.com failed, reason: getaddrinfo EAI_AGAIN api.example.com']],
    ['NETWORK', ['Error: socket hang up']],
    ['CONTEXT_EXHAUSTED', ['context length exceeded: maximum context length is 200000 tokens']],
    ['CONTEXT_EXHAUSTED', ['prompt is too long: 212000 tokens > 200000 maximum']],
    ['PERMISSION', ["Error: EACCES: permission denied, open '/x'"]],
    ['PERMISSION', ["Error: EPERM: operation not permitted, unlink 'C:\\\\tmp\\\\a'"]],
    ['TOOL_NOT_FOUND', ['sh: 1: claude: not found'], 127],
    ['TOOL_NOT_FOUND', ['bash: pandoc: command not found']],
    ['TOOL_NOT_FOUND', ['Error: spawn pandoc ENOENT']],
    ['INVALID_INPUT', ['error: unknown option --chapter', 'Usage: writer [options] <unit>'], 2],
    ['INVALID_INPUT', ['Error: invalid argument "chx" for --unit']],
    ['BROKEN_BUILD', ['SyntaxError: Unexpected token } in JSON at position 12']],
    ["BROKEN_BUILD", ["Error: Cannot find module './render.js'", 'Require stack:']],
    ['BROKEN_BUILD', ['error TS2307: compilation error in outline.ts']],
    ['UNKNOWN', ["TypeError: Cannot read properties of undefined (reading 'sections') at renderOutline (outline.js:42)"]],
    ['UNKNOWN', []],
  ];
  it.each(cases)('%s from %j', (expected, tail, exitCode = 1) => {
    expect(classifyOutcome(outcome({ tail, exitCode }), noRules)).toBe(expected);
  });

  it('exit 2 alone, without a usage text, is not INVALID_INPUT', () => {
    expect(classifyOutcome(outcome({ exitCode: 2, tail: ['something broke'] }), noRules)).toBe('UNKNOWN');
  });
});

describe('classifyOutcome: agent rules', () => {
  const rules: FailureRule[] = [
    { match: 'quota exhausted', class: 'RATE_LIMITED' },
    { exitCode: 3, class: 'VERIFICATION_FAILED' },
    { match: 'outline', exitCode: 4, class: 'BROKEN_BUILD' },
    { match: '([bad regex', class: 'PERMISSION' },
  ];
  const ctx = { markerFound: false, rules };

  it('a configured regex wins over built-in signs', () => {
    expect(classifyOutcome(outcome({ tail: ['quota exhausted (HTTP 503)'] }), ctx)).toBe('RATE_LIMITED');
  });
  it('a configured exit code matches', () => {
    expect(classifyOutcome(outcome({ exitCode: 3, tail: ['network'] }), ctx)).toBe('VERIFICATION_FAILED');
  });
  it('a rule with both match and exitCode needs both', () => {
    expect(classifyOutcome(outcome({ exitCode: 4, tail: ['outline missing'] }), ctx)).toBe('BROKEN_BUILD');
    expect(classifyOutcome(outcome({ exitCode: 5, tail: ['outline missing'] }), ctx)).toBe('UNKNOWN');
  });
  it('an invalid regex is skipped, not thrown', () => {
    expect(classifyOutcome(outcome({ tail: ['([bad regex'] }), ctx)).toBe('UNKNOWN');
  });
  it('rules do not override process facts', () => {
    expect(classifyOutcome(outcome({ stalled: true, tail: ['quota exhausted'] }), ctx)).toBe('STALLED');
  });
});

describe('strategy data', () => {
  it('describes every class, and retryable agrees with RETRYABLE', () => {
    for (const [cls, info] of Object.entries(CLASS_INFO)) {
      expect(info.class).toBe(cls);
      expect(info.signs.length).toBeGreaterThan(0);
      expect(info.retryable).toBe(RETRYABLE.has(cls as FailureClass));
    }
    expect(Object.keys(CLASS_INFO)).toHaveLength(14);
  });
  it('never-retry and retryable do not overlap', () => {
    for (const c of NEVER_RETRY_UNCHANGED) expect(RETRYABLE.has(c)).toBe(false);
  });
});
