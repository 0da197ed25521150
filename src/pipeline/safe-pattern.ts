import { RE2JS } from 're2js';
import { provenLinearOnV8 } from './pattern-shape.js';
import { sanitizeLine } from '../text/sanitize.js';

// Every regex whose source comes from the workspace — units.pattern, sources.todo_pattern,
// agents' rules[].match, and what the code builds around them — is compiled here and only
// here. Such a pattern runs on RE2 (re2js: a pure-JS port of RE2/J,
// linear-time matching, no native build), so no pattern and no input can make a match take
// more than time proportional to the input: `ch(\d+)+x?` against `ch` + 36 digits + `!` ran
// for hours on V8's backtracking engine, with the event loop and so every signal handler
// blocked. The few patterns pattern-shape.ts proves linear on V8 run there, for speed.
// Compiled patterns are cached: the scan matches one pattern against 100k file names.

/** `i`: case-insensitive (rules' match); `m`: `^` and `$` at line ends (heading scans). */
export type PatternFlags = '' | 'i' | 'm';

export interface PatternMatch {
  /** Where the match starts in the input (UTF-16 index, as String.prototype.slice counts). */
  index: number;
  /** The whole match, then each group (undefined when it took no part). */
  groups: readonly (string | undefined)[];
  /** Named groups, `(?<unit>…)` or `(?P<unit>…)`. */
  named: Readonly<Record<string, string | undefined>>;
}

export interface SafePattern {
  readonly source: string;
  /** Which engine runs it: 'v8' only when pattern-shape.ts proved it linear there. */
  readonly engine: 'v8' | 're2';
  /** Names of its named groups. */
  readonly names: readonly string[];
  /** Does it match anywhere in `input`? */
  test(input: string): boolean;
  /** The first match in `input`. */
  exec(input: string): PatternMatch | null;
  /** Every match in `input`, left to right, none overlapping. */
  matchAll(input: string): PatternMatch[];
}

/** A pattern RE2 refuses: `reason` says what and what to write instead. */
export class PatternError extends Error {
  constructor(
    readonly source: string,
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'PatternError';
  }
}

/** Where the reader is sent for what RE2 takes. */
export const RE2_NOTE = 'checkroom runs config patterns on RE2 (linear time; docs/config.md, "Patterns")';

// What a JavaScript habit turns into in RE2's words, checked before RE2's own message (which
// names the token, not the feature).
const UNSUPPORTED: [RegExp, string][] = [
  [/\(\?[=!]/, 'lookahead (?=…) and (?!…) are not supported (rewrite the pattern without them)'],
  [/\(\?<[=!]/, 'lookbehind (?<=…) and (?<!…) are not supported (rewrite the pattern without them)'],
  [/\\[1-9]|\\k</, 'backreferences (\\1, \\k<name>) are not supported (rewrite the pattern without them)'],
  [/\\u[0-9A-Fa-f{]/, '\\uXXXX escapes are not supported: write \\x{XXXX}'],
  [/\\c[A-Za-z]/, '\\cX control escapes are not supported: write \\x{01}…\\x{1F}'],
];

const re2Flags = (flags: PatternFlags): number => (flags === 'i' ? RE2JS.CASE_INSENSITIVE : flags === 'm' ? RE2JS.MULTILINE : 0);

/** Odd backslashes before `i`: the character at `i` is escaped. */
const escapedAt = (s: string, i: number): boolean => {
  let n = 0;
  for (let j = i - 1; j >= 0 && s[j] === '\\'; j--) n++;
  return n % 2 === 1;
};

/** Why RE2 refuses `source`, in words a user can act on; null when it compiles. */
export function patternProblem(source: string, flags: PatternFlags = ''): string | null {
  try {
    compile(source, flags);
    return null;
  } catch (e) {
    return e instanceof PatternError ? e.reason : String(e);
  }
}

function explain(source: string, err: unknown): string {
  for (const [re, words] of UNSUPPORTED) {
    const m = re.exec(source);
    if (m && !escapedAt(source, m.index)) return `${words}: ${RE2_NOTE}`;
  }
  // RE2's message quotes the pattern, which is workspace text: escaped like any other.
  const raw = err instanceof Error ? err.message : String(err);
  return `${sanitizeLine(raw.replace(/^error parsing regexp: /, ''))}: ${RE2_NOTE}`;
}

const toMatch = (m: RegExpExecArray | RegExpMatchArray | unknown[]): PatternMatch => {
  const a = m as RegExpMatchArray;
  return { index: a.index ?? 0, groups: [...a] as (string | undefined)[], named: { ...(a.groups ?? {}) } };
};

function onRe2(source: string, flags: PatternFlags): SafePattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, re2Flags(flags));
  } catch (err) {
    throw new PatternError(source, explain(source, err));
  }
  return {
    source,
    engine: 're2',
    names: Object.keys(re.namedGroups()),
    test: (input) => re.test(input),
    exec: (input) => {
      const m = re.exec(input);
      return m ? toMatch(m) : null;
    },
    matchAll: (input) => Array.from(re.matchAll(input), toMatch),
  };
}

function onV8(source: string, names: readonly string[]): SafePattern {
  const re = new RegExp(source);
  const all = new RegExp(source, 'g');
  return {
    source,
    engine: 'v8',
    names,
    test: (input) => re.test(input),
    exec: (input) => {
      const m = re.exec(input);
      return m ? toMatch(m) : null;
    },
    matchAll: (input) => Array.from(input.matchAll(all), toMatch),
  };
}

function compile(source: string, flags: PatternFlags): SafePattern {
  // RE2 decides what is valid, always: a pattern means one thing whichever engine runs it.
  const re2 = onRe2(source, flags);
  if (!provenLinearOnV8(source, flags)) return re2;
  try {
    return onV8(source, re2.names);
  } catch {
    return re2; // RE2-only syntax that the shape check let through: RE2 runs it
  }
}

const CACHE_MAX = 512;
const cache = new Map<string, SafePattern | PatternError>();

/**
 * The compiled pattern for `source`, cached. Throws PatternError when RE2 refuses it; the
 * config loader refuses such a pattern first (schema.ts), so at the sites this only happens
 * for a config that skipped validation.
 */
export function compilePattern(source: string, flags: PatternFlags = ''): SafePattern {
  const key = `${flags}/${source}`;
  let hit = cache.get(key);
  if (!hit) {
    try {
      hit = compile(source, flags);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      hit = e;
    }
    // Patterns come from configs and rules: a handful per process. A bound keeps a
    // long-lived control room whose config keeps changing from holding every old one.
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, hit);
  }
  if (hit instanceof PatternError) throw hit;
  return hit;
}

/** `compilePattern`, or null when RE2 refuses it (a site that must not stop over a bad pattern). */
export function tryPattern(source: string, flags: PatternFlags = ''): SafePattern | null {
  try {
    return compilePattern(source, flags);
  } catch (e) {
    if (e instanceof PatternError) return null;
    throw e;
  }
}

/** `s` as a literal inside a pattern (both engines take a backslash before punctuation). */
export const escapePattern = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `units.pattern` as a whole-id test (`^(?:…)$`); null when RE2 refuses it. */
export const unitIdPattern = (pattern: string): SafePattern | null => tryPattern(`^(?:${pattern})$`);
