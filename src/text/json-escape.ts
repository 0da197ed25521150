import { redactSecrets } from './redact.js';

// JSON that is as safe on a terminal as the text. JSON.stringify escapes C0
// and lone surrogates but leaves DEL, the C1 controls (U+009B is a one-byte CSI to many
// terminals), U+2028/2029 and the format characters (Cf: zero-width space and joiner, BOM,
// soft hyphen, bidi controls, tags) raw: `status --json | less` drew a hidden name, and a
// script comparing names saw two equal-looking different ones. Each is written `\uXXXX`
// (a surrogate pair for an astral one), which is the same JSON string: the document parses
// back to exactly the workspace's text. Outside strings JSON has only ASCII, so every match
// is inside a string, where the escape is valid.

/**
 * Unicode's Cf characters in the BMP (Node 20's ICU; test/cli/json-escape.test.ts checks this list
 * against `\p{Cf}` so a newer Unicode cannot slip one past it).
 */
export const BMP_FORMAT = '\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890\\u0891\\u08e2\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';

// The pre-check, without the `u` flag: `\p{Cf}` under `u` scans ~5× slower (165 ms against
// 30 ms over the 10 MB `status --json` of 50k files). It is a superset of what is escaped:
// any surrogate sends the chunk to the exact pass (astral Cf, tags, are pairs). C0 is not in it:
// JSON.stringify escapes C0, and a class that also spans C0 scans ~7× slower in V8.
export const MAYBE_UNSAFE = new RegExp(`[\\u007f-\\u009f\\u2028\\u2029${BMP_FORMAT}\\ud800-\\udfff]`);
const EXACT = /[\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/gu;

const unit = (n: number): string => `\\u${n.toString(16).padStart(4, '0')}`;
// A match is one code point: one UTF-16 unit, or the two of an astral format character.
const escapeOne = (c: string): string => (c.length === 2 ? unit(c.charCodeAt(0)) + unit(c.charCodeAt(1)) : unit(c.charCodeAt(0)));

/** JSON text with no control, separator or format character left raw (the same JSON value). */
export const escapeJsonText = (raw: string): string => {
  // A known secret value never leaves in JSON either (redact.ts; docs/scale-out.md, Secrets).
  const json = redactSecrets(raw);
  return MAYBE_UNSAFE.test(json) ? json.replace(EXACT, escapeOne) : json;
};
