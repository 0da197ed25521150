import { describe, expect, it } from 'vitest';
import { commandFingerprint, errorFingerprint, keywords, normalizeError } from '../../../../src/run/policy/fingerprint.js';

describe('commandFingerprint', () => {
  const argv = (attempt: string) => ['claude', '-p', 'write ch03 draft', '--attempt', attempt];

  it('is stable, short, and differs for different commands', () => {
    expect(commandFingerprint(argv('1'))).toBe(commandFingerprint(argv('1')));
    expect(commandFingerprint(argv('1'))).toMatch(/^[0-9a-f]{12}$/);
    expect(commandFingerprint(argv('1'))).not.toBe(commandFingerprint(argv('2')));
    expect(commandFingerprint(['a', 'b c'])).not.toBe(commandFingerprint(['a b', 'c']));
  });

  it('ignores excluded slots such as the attempt number', () => {
    expect(commandFingerprint(argv('1'), [4])).toBe(commandFingerprint(argv('2'), [4]));
    expect(commandFingerprint(argv('1'), [4])).not.toBe(commandFingerprint(['claude', '-p', 'write ch04 draft', '--attempt', '1'], [4]));
  });
});

describe('normalizeError', () => {
  it('strips what varies between identical failures', () => {
    const a = [
      '\u001b[31m2026-11-28T14:03:11.123Z ERROR\u001b[0m request 3f2a9c1e-0b7d-4c1a-9e2f-1a2b3c4d5e6f failed',
      "TypeError: Cannot read properties of undefined (reading 'sections')",
      '    at renderOutline (/home/ann/book/src/outline.js:42:17)',
      '    at pid 31337 buffer 0xdeadbeef',
    ];
    const b = [
      '\\e[31m2026-11-29T09:12:45.999Z ERROR\\e[0m request 9a8b7c6d-1111-2222-3333-444455556666 failed',
      "TypeError: Cannot read properties of undefined (reading 'sections')",
      '    at renderOutline (/tmp/run-7/src/outline.js:57:3)',
      '    at pid 4242 buffer 0xcafe01',
    ];
    expect(normalizeError(a)).toBe(normalizeError(b));
    expect(errorFingerprint(a)).toBe(errorFingerprint(b));
    const n = normalizeError(a);
    expect(n).not.toMatch(/\d{2}/);
    expect(n).not.toContain('/home');
    expect(n).not.toContain('\u001b');
    expect(n).toContain("typeerror: cannot read properties of undefined (reading 'sections')");
  });

  it('keeps the last 20 meaningful lines and drops empty ones', () => {
    const lines = Array.from({ length: 30 }, (_, i) => `step ${'abcdefghijklmnopqrstuvwxyzABCD'[i]}x failed`);
    lines.splice(25, 0, '', '   ', '12345', '----');
    const out = normalizeError(lines.join('\n')).split('\n');
    expect(out).toHaveLength(20);
    expect(out[19]).toBe('step dx failed');
    expect(out[0]).toBe('step kx failed');
  });

  it('different errors keep different fingerprints', () => {
    expect(errorFingerprint('Error: 429 Too Many Requests')).not.toBe(errorFingerprint("Error: EACCES: permission denied, open '/x'"));
  });

  it('keeps prose like async/await that is not a path', () => {
    expect(normalizeError('Using async/await with try-catch')).toContain('async/await');
  });
});

describe('keywords', () => {
  it('drops stop words, log noise, short tokens and numbers', () => {
    const k = keywords('ERROR: the renderer failed at line 42 and the outline is missing sections');
    expect([...k].sort()).toEqual(['missing', 'outline', 'renderer', 'sections']);
  });
  it('returns an empty set for noise only', () => {
    expect(keywords('error at the 12:00 info warn').size).toBe(0);
  });
});
