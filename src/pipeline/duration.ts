// Durations in checkroom.yaml: a bare number means seconds (the common unit for timeouts),
// a string is one or more <number><unit> parts ("250ms", "30s", "5m", "1h", "1m30s").
// Results are milliseconds. Anything that is not finite is refused: "unlimited" timeouts
// are how a silent hang becomes a stuck pipeline (docs/domain.md, Handling agent faults, liveness).

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const WHOLE = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

/** Node's timers overflow past 2^31-1 ms (~24.8 days) and then fire at once; stay below. */
export const MAX_DURATION_MS = 2_147_483_647;

export const DURATION_HINT = "seconds as a number, or a string like '250ms', '30s', '5m', '1h'";

/** Milliseconds for a YAML duration value, or null when it is not a valid duration. */
export const parseDuration = (value: unknown): number | null => {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return null;
    return Math.round(value * 1000);
  }
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (!WHOLE.test(text)) return null;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNIT_MS[unit];
  return Number.isFinite(ms) ? Math.round(ms) : null;
};

/** Short human form for messages: 1500 → "1.5s", 600000 → "10m". */
export const formatDuration = (ms: number): string => {
  if (ms % 3_600_000 === 0 && ms > 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
};
