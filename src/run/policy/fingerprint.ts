import { createHash } from 'node:crypto';

// Fingerprints for no-progress loops (docs/domain.md, Handling agent faults): the same command with the same
// error again and again means retrying is not helping. Both fingerprints must ignore what
// changes between attempts without changing the situation: the attempt number, pids,
// timestamps, temp paths, line:col of a stack frame.

const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

/**
 * Stable short hash of an argv. `exclude` lists argv indexes to leave out (the slot that
 * carries {attempt} or {last_error}), so attempt 1 and attempt 2 of one command match.
 */
export const commandFingerprint = (argv: readonly string[], exclude: readonly number[] = []): string => {
  const skip = new Set(exclude);
  const kept = argv.map((arg, i) => (skip.has(i) ? '\u0000' : arg));
  return shortHash(JSON.stringify(kept));
};

const MAX_LINES = 20;

// Real escape sequences, and the escaped spelling `\e[31m` that src/text/sanitize.ts turns them
// into: output tails reach us already sanitized.
const ANSI =
  // eslint-disable-next-line no-control-regex -- escape sequences are what it removes from an error line
  /\u001b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])|\\(?:e|x1b|u001b)(?:\[[0-9;?]*[ -/]*[@-~]|\][^\\]*(?:\\a|\\e\\\\)?)/gi;
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}(?:[t ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:z|[+-]\d{2}:?\d{2})?)?\b/gi;
const CLOCK = /\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\b/g;
const HEX = /\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b/gi;
// Absolute, home and ./ paths; relative paths only when they end in a file name or have two
// separators, so prose like "async/await" survives (it is what circular-fix compares).
const PATH =
  /(?<![\w.~-])(?:[a-z]:\\[^\s'"`()<>,;]*|~?\/[^\s'"`()<>,;:]+|\.{1,2}\/[^\s'"`()<>,;:]*)|\b[\w.-]+(?:\/[\w.-]+)*\/[\w-]+\.[a-z0-9]+\b|\b[\w.-]+(?:\/[\w.-]+){2,}/gi;
// `file.js:42:17`: only after a name, so a bare clock `14:03` is left to CLOCK.
const LINE_COL = /(?<=[a-z_)\]]):\d+(?::\d+)?\b/g;
const NUMBER = /\d+(?:\.\d+)?/g;

const normalizeLine = (line: string): string =>
  line
    .toLowerCase()
    .replace(ANSI, ' ')
    .replace(UUID, ' <id> ')
    .replace(ISO_TIME, ' <t> ')
    .replace(LINE_COL, '')
    .replace(CLOCK, ' <t> ')
    .replace(HEX, ' <id> ')
    .replace(PATH, ' <p> ')
    .replace(NUMBER, '#')
    .replace(/\s+/g, ' ')
    .trim();

// A line with nothing but placeholders and punctuation says nothing about the error.
const meaningful = (line: string): boolean => /[a-z]{2,}/.test(line.replace(/<(?:id|t|p)>/g, ''));

/** Normalize an error text so two attempts failing the same way compare equal. */
export const normalizeError = (text: string | readonly string[]): string => {
  const lines = (typeof text === 'string' ? text : text.join('\n')).split(/\r?\n/);
  const kept = lines.map(normalizeLine).filter(meaningful);
  return kept.slice(-MAX_LINES).join('\n');
};

export const errorFingerprint = (text: string | readonly string[]): string => shortHash(normalizeError(text));

// English stop words plus log noise that appears in every failure and so carries no signal
// for the circular-fix comparison (docs/domain.md, Failure classes and their caps: "stop words removed").
const STOP_WORDS = new Set(
  (
    'the and for with that this from are was were been being have has had not but you your ' +
    'our its his her they them their then than there here what when where which who why how ' +
    'can could would should will shall may might must into onto over under about after before ' +
    'again also all any each few more most other some such only own same too very just now ' +
    'does did doing yes out off once both while until because through during above below ' +
    'between these those she him who whom itself ourselves yourself let lets get got use using ' +
    // log noise
    'error errors err warn warning warnings info debug trace fatal notice log logs stderr ' +
    'stdout line lines col column file files node internal process exit code ' +
    'status failed failure fail attempt retry retrying js mjs cjs ts tsx at'
  ).split(/\s+/),
);

/** Keywords of an attempt: tokens of 3+ characters, stop words and placeholders removed. */
export const keywords = (text: string | readonly string[]): Set<string> => {
  const out = new Set<string>();
  const normalized = normalizeError(text).replace(/<(?:id|t|p)>/g, ' ');
  for (const token of normalized.split(/[^a-z0-9_]+/)) {
    if (token.length < 3 || STOP_WORDS.has(token) || /^[\d_#]+$/.test(token)) continue;
    out.add(token);
  }
  return out;
};
