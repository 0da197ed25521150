import { sanitize } from '../sanitize.js';
import { BMP_FORMAT } from '../json-escape.js';
import { PAINT_SGR } from '../app/paint.js';

// The one way text leaves the CLI for a terminal (issue 16 item 2). `checkroom status` drew
// the pipeline's and the phases' names from checkroom.yaml raw: an OSC 52 in `name:` wrote
// the operator's clipboard, an OSC 0 set the title, a CSI cleared the screen. Call sites
// escape what they measure (sanitizeLine, so widths are right), and this writer escapes
// whatever one forgot, on stdout and stderr alike; lint forbids writing to them elsewhere.
// What it lets through: newlines, and with colour on, exactly the SGR codes paint writes
// (a name that holds one of those changes a colour, nothing more). JSON passes unchanged:
// escapeJsonText has already escaped everything this escapes.

/** Where a command writes its text (or its JSON, which is text with nothing to escape). */
export interface Out {
  write(s: string): void;
}

// Without the `u` flag: a 10 MB `status --json` goes through here in 64 KB chunks, and
// `\p{Cf}` under `u` scans ~5× slower. A superset of what sanitize escapes (tabs included,
// which it widens; any surrogate, since astral format characters are pairs).
const MAYBE = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029${BMP_FORMAT}\\ud800-\\udfff]`);

/** `s` as it may reach a terminal: every control and format character escaped but newlines (and paint's colours when `colour`). */
export const escapeOutput = (s: string, colour: boolean): string => {
  if (!MAYBE.test(s)) return s;
  if (!colour) return sanitize(s);
  // split with a capturing group: the paint codes are at the odd indexes.
  return s
    .split(PAINT_SGR)
    .map((part, i) => (i % 2 ? part : sanitize(part)))
    .join('');
};

/** A text writer on `stream` that escapes what it writes. */
export const textOut = (stream: NodeJS.WritableStream, colour: boolean): Out => ({
  write: (s) => void stream.write(escapeOutput(s, colour)),
});

/** Messages on stderr: never painted, escaped like stdout. */
export const stderrOut: Out = { write: (s) => void process.stderr.write(escapeOutput(s, false)) };
