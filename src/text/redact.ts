// Known secret values never reach what checkroom writes or prints (docs/scale-out.md, Secrets):
// the journal, JSON out, the CLI's text, the agents' lines in the room and the run logs the
// keeper writes all pass through redactSecrets. The values are remembered when the secrets are
// read for a launch (run/secrets/secrets.ts); a value shorter than MIN_SECRET is not
// remembered, since redacting every "1" or "true" would garble everything else.

export const MIN_SECRET = 8;
export const REDACTED = '[secret]';

const known = new Set<string>();

/** Remember values to redact from now on (process-wide: every writer of this process reads them). */
export const rememberSecrets = (values: Iterable<string>): void => {
  for (const v of values) if (v.length >= MIN_SECRET && !v.includes('\n')) known.add(v);
};

/** The values remembered so far, longest first (a value inside a longer one is redacted after it). */
export const knownSecrets = (): string[] => [...known].sort((a, b) => b.length - a.length);

/** Forget every value (tests). */
export const forgetSecrets = (): void => known.clear();

/** The text with every known secret value replaced by [secret]. */
export const redactSecrets = (text: string): string => {
  if (known.size === 0) return text;
  let out = text;
  for (const v of knownSecrets()) if (out.includes(v)) out = out.split(v).join(REDACTED);
  return out;
};
