import { redactSecrets } from '../text/redact.js';
import { sanitize } from '../text/sanitize.js';
import { MAYBE_UNSAFE } from '../text/json-escape.js';
import { PAINT_SGR } from '../text/paint.js';
import { outputCharset, toCharset, type Charset } from '../text/charset.js';

// The one way text leaves the CLI for a terminal. `checkroom status` drew
// the pipeline's and the phases' names from checkroom.yaml raw: an OSC 52 in `name:` wrote
// the operator's clipboard, an OSC 0 set the title, a CSI cleared the screen. Call sites
// escape what they measure (sanitizeLine, so widths are right), and this writer escapes
// whatever one forgot, on stdout and stderr alike; lint forbids writing to them elsewhere.
// What it lets through: newlines, and with colour on, exactly the SGR codes paint writes
// (a name that holds one of those changes a colour, nothing more). JSON has its own choke
// point, escapeJsonText, which escapes all this does and more; a stored answer read back
// from .checkroom/ is workspace bytes, and goes through `write`.
//
// It also writes in the terminal's charset (src/text/charset.ts): under LANG=C,
// `--ascii` or TERM=linux every byte of a text command is ASCII. A command's JSON is not text:
// cli.ts gives `--json` a writer in `unicode` (UTF-8 JSON for scripts), and `json` writes as is.

/** Where a command writes its text. */
export interface Out {
  write(s: string): void;
  /**
   * JSON text as writeJson made it, escaped by escapeJsonText (the JSON choke point), written
   * as it is: checked again here it cost ~60 ms of a 12.6 MB `status --json`. Absent (a
   * test's capture): `write`.
   */
  json?(s: string): void;
}

/** Where writeJson puts a document: `out.json` when it has one. */
export const jsonOut = (out: Out): { write(s: string): void } => (out.json ? { write: out.json } : out);

// Cheap tests first, without the `u` flag (`\p{Cf}` under `u` scans ~165 ms per 10 MB): a
// 12.6 MB `status --json` (50k files) goes through here in 64 KB chunks. Printable ASCII and
// newlines only, the common case, take one pass (~35 ms at 12.6 MB). Otherwise C0 and
// MAYBE_UNSAFE apart (~80 ms; one class spanning both scans in ~400 ms in V8) decide whether
// sanitize runs; together a superset of what it changes (tabs, which it widens; any
// surrogate, as tags are pairs).
const NOT_PLAIN = /[^\n\x20-\x7e]/;
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const C0 = /[\u0000-\u0009\u000b-\u001f]/;

/** `s` as it may reach a terminal: every control and format character escaped but newlines (and paint's colours when `colour`), in `charset`. */
export const escapeOutput = (s: string, colour: boolean, charset: Charset = outputCharset()): string => {
  if (!NOT_PLAIN.test(s)) return s;
  if (!C0.test(s) && !MAYBE_UNSAFE.test(s)) return toCharset(s, charset);
  if (!colour) return toCharset(sanitize(s), charset);
  // split with a capturing group: the paint codes are at the odd indexes.
  return toCharset(
    s
      .split(PAINT_SGR)
      .map((part, i) => (i % 2 ? part : sanitize(part)))
      .join(''),
    charset,
  );
};

/** A text writer on `stream` that escapes what it writes; `charset` unset: the terminal's (outputCharset). */
export const textOut = (stream: NodeJS.WritableStream, colour: boolean, charset?: Charset): Out => ({
  write: (s) => void stream.write(escapeOutput(redactSecrets(s), colour, charset)),
  json: (s) => void stream.write(redactSecrets(s)),
});

/** Messages on stderr: never painted, escaped like stdout, in the terminal's charset. */
export const stderrOut: Out = { write: (s) => void process.stderr.write(escapeOutput(redactSecrets(s), false)) };
