import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { compilePattern, patternProblem, PatternError, tryPattern, unitIdPattern } from '../../../src/pipeline/safe-pattern.js';
import { provenLinearOnV8 } from '../../../src/pipeline/pattern-shape.js';

// Issue 16 item 3: config patterns run on RE2 (linear time) unless pattern-shape.ts proves
// V8 runs them linearly and with the same meaning. The engine choice is asserted, and a
// property checks that on the patterns V8 is given, V8 and RE2 agree on every input.

describe('compilePattern', () => {
  it('runs a catastrophic pattern on RE2, which answers', () => {
    const p = compilePattern('^(?:ch(\\d+)+x?)$');
    expect(p.engine).toBe('re2');
    expect(p.test(`ch${'1'.repeat(36)}!`)).toBe(false);
    expect(p.test(`ch${'1'.repeat(36)}x`)).toBe(true);
  });

  it('gives V8 only the shapes proven linear', () => {
    expect(unitIdPattern('ch\\d{2,3}')?.engine).toBe('v8');
    expect(compilePattern('^(ch\\d{2,3})-research\\.md$').engine).toBe('v8');
    for (const src of ['^(?:ch(\\d+)+x?)$', '^(?:a|b)$', '^a+b+$', '^(?:ch.+)$', '^\\s+$', 'ch\\d+', '^[[:alpha:]]+$', '^(?P<u>a)$', '^(ab)+$']) {
      expect(compilePattern(src).engine, src).toBe('re2');
    }
    expect(compilePattern('^a+$', 'i').engine).toBe('re2');
  });

  it('reads named groups in both spellings', () => {
    for (const src of ['^(?<unit>ch\\d+)-(?<step>[a-z0-9]+)$', '^(?P<unit>ch\\d+)-(?P<step>[a-z0-9]+)$']) {
      const p = compilePattern(src);
      expect(p.names).toEqual(['unit', 'step']);
      expect(p.exec('ch03-draft')?.named).toEqual({ unit: 'ch03', step: 'draft' });
    }
  });

  it('scans every heading match with m, left to right', () => {
    const p = compilePattern('^#{1,6}\\s.*?\\b(ch\\d+)\\b', 'm');
    const text = '# x\n## ch01 title\ntext ch02\n### about ch03 — y\n';
    expect(p.matchAll(text).map((m) => [m.index, m.groups[1]])).toEqual([
      [4, 'ch01'],
      [28, 'ch03'],
    ]);
  });

  it('is case-insensitive with i', () => {
    expect(compilePattern('rate limit', 'i').test('HTTP 429: Rate Limit exceeded')).toBe(true);
  });

  it('refuses what RE2 refuses, saying what and why', () => {
    expect(patternProblem('ch(?=\\d)')).toMatch(/^lookahead .* not supported .*RE2 \(linear time/);
    expect(patternProblem('(?<!x)ch')).toMatch(/^lookbehind /);
    expect(patternProblem('(a)\\1')).toMatch(/^backreferences /);
    expect(patternProblem('\\u00e9')).toContain('\\x{XXXX}');
    expect(patternProblem('ch(\\d')).toMatch(/^missing closing \)/);
    // An escaped parenthesis is a literal, not a lookahead: RE2's own words.
    expect(patternProblem('\\(?=')).toBe(null);
    expect(() => compilePattern('(?=a)')).toThrow(PatternError);
    expect(tryPattern('(?=a)')).toBe(null);
    expect(patternProblem('ch\\d+')).toBe(null);
  });

  it('escapes workspace text quoted in RE2s message', () => {
    expect(patternProblem('(\u001b[2J')).not.toMatch(/\u001b/);
  });

  it('compiles a pattern once', () => {
    expect(compilePattern('^x\\d$')).toBe(compilePattern('^x\\d$'));
    expect(compilePattern('^x\\d$', 'i')).not.toBe(compilePattern('^x\\d$'));
  });
});

// Patterns of the shapes the check is about: atoms, classes, groups, one or two quantifiers, alternation.
const atom = fc.constantFrom('a', 'b', '1', '-', '\\d', '\\w', '\\D', '[a-c]', '[^a]', '\\.', '\\b', 'é', '.', '\\s', '[\\s]');
const quant = fc.constantFrom('', '', '', '*', '+', '?', '{1,2}', '{2}', '+?', '*?');
const piece = fc.oneof(
  fc.tuple(atom, quant).map(([a, q]) => a + q),
  fc.tuple(fc.array(atom, { minLength: 1, maxLength: 3 }), quant).map(([as, q]) => `(${as.join('')})${q}`),
  fc.tuple(atom, atom).map(([a, b]) => `(?:${a}|${b})`),
);
const pattern = fc.array(piece, { minLength: 1, maxLength: 4 }).map((ps) => `^${ps.join('')}${ps.length % 2 ? '$' : ''}`);
const input = fc.stringMatching(/^[ab1\-.é x\r\u00a0]{0,8}$/);

describe('pattern-shape: V8 is given a pattern only where it means what RE2 means', () => {
  it('agrees with RE2 on every input for every pattern it accepts', () => {
    fc.assert(
      fc.property(pattern, fc.array(input, { minLength: 1, maxLength: 8 }), (src, inputs) => {
        if (!provenLinearOnV8(src, '')) return;
        // compilePattern asks RE2 first and falls back to it when V8 refuses: only both count.
        let v8: RegExp;
        let re2: RE2JS;
        try {
          re2 = RE2JS.compile(src);
          v8 = new RegExp(src);
        } catch {
          return;
        }
        for (const s of inputs) {
          const a = v8.exec(s);
          const b = re2.exec(s);
          expect(a ? [...a] : null, `${src} on ${JSON.stringify(s)}`).toEqual(b ? [...b] : null);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts the everyday unit and file name patterns', () => {
    expect(provenLinearOnV8('^(?:ch\\d{2,3})$', '')).toBe(true);
    expect(provenLinearOnV8('^ch(ch\\d+)\\-draft\\.md$', '')).toBe(true);
  });
});
