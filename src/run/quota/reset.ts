// When an account's quota resets, read from what an agent printed (docs/quota.md). Pure: a
// line and the clock in, an epoch-ms deadline out. Each format is one row of READERS, in the
// words the CLIs and the HTTP APIs really use:
// - Claude Code's machine form `Claude AI usage limit reached|1760000400` (epoch seconds);
// - its human forms `5-hour limit reached ∙ resets 9pm`, `You've hit your session limit ·
//   resets 12:50am (America/Los_Angeles)`, `Your limit will reset at 5pm (Europe/Warsaw).`;
// - the API's `You will regain access on 2026-04-01 at 00:00 UTC.`;
// - HTTP `retry-after` (seconds or an HTTP date) and `anthropic-ratelimit-*-reset` (RFC 3339)
//   as a log prints headers;
// - Google's RetryInfo (`"retryDelay": "34s"`) and Gemini CLI's `Please retry in 34.5s`.

export type QuotaSource = 'usage-limit' | 'retry-after' | 'ratelimit-reset' | 'retry-delay';

export interface QuotaReset {
  /** Epoch ms at which the account may be asked again. */
  until: number;
  source: QuotaSource;
}

/** A reset further ahead than this is not believed (a weekly limit is the longest there is). */
export const MAX_QUOTA_WAIT_MS = 8 * 24 * 3600_000;

/** Lines longer than this are looked at only in their first part: the readers stay linear and cheap. */
const MAX_LINE = 8192;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** Wall-clock parts of an instant in a time zone (undefined: the process's own). */
const wallOf = (ms: number, tz: string | undefined): { y: number; mo: number; d: number; h: number; mi: number; s: number } => {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return { y: p.year!, mo: p.month!, d: p.day!, h: p.hour! % 24, mi: p.minute!, s: p.second! };
};

/** The instant whose wall clock in `tz` reads y-mo-d h:mi (two passes settle a DST edge). */
const instantOf = (y: number, mo: number, d: number, h: number, mi: number, tz: string | undefined): number => {
  const wanted = Date.UTC(y, mo - 1, d, h, mi);
  let t = wanted;
  for (let i = 0; i < 2; i++) {
    const w = wallOf(t, tz);
    t += wanted - Date.UTC(w.y, w.mo - 1, w.d, w.h, w.mi, w.s);
  }
  return t;
};

const validZone = (tz: string | undefined): string | undefined => {
  if (!tz) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz;
  } catch {
    return undefined;
  }
};

/** "3pm", "12:50am", "15:00" → hours and minutes, or null. */
const clockOf = (hh: string, mm: string | undefined, ampm: string | undefined): { h: number; mi: number } | null => {
  let h = Number(hh);
  const mi = mm ? Number(mm) : 0;
  if (ampm) {
    if (h < 1 || h > 12) return null;
    h = (h % 12) + (ampm.toLowerCase() === 'pm' ? 12 : 0);
  }
  return h <= 23 && mi <= 59 ? { h, mi } : null;
};

/** The next time the wall clock reads the given time (on the given day, if one is named). */
const nextWall = (now: number, clock: { h: number; mi: number }, tz: string | undefined, day: { mo: number; d: number } | null): number => {
  const w = wallOf(now, tz);
  if (day) {
    const t = instantOf(w.y, day.mo, day.d, clock.h, clock.mi, tz);
    // "resets Jan 2" read on Dec 30 is next year's.
    return t < now - 12 * 3600_000 ? instantOf(w.y + 1, day.mo, day.d, clock.h, clock.mi, tz) : t;
  }
  const today = instantOf(w.y, w.mo, w.d, clock.h, clock.mi, tz);
  // A reset a minute ago is this one, said late; further back it is tomorrow's.
  return today < now - 60_000 ? instantOf(w.y, w.mo, w.d + 1, clock.h, clock.mi, tz) : today;
};

const HUMAN = /(?:limit reached|hit your (?:session |weekly |usage )?limit|usage limit)[^\n]{0,80}?\breset(?:s| at)?\s+(?:(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2}),?\s+(?:at\s+)?)?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+){0,2})\))?/i;

interface Reader {
  source: QuotaSource;
  read(line: string, now: number, zone: string | undefined): number | null;
}

/** The formats, most specific first; the first that reads a time wins for its line. */
const READERS: readonly Reader[] = [
  {
    source: 'usage-limit',
    read: (line) => {
      const m = /usage limit reached\|(\d{9,11})\b/i.exec(line);
      return m ? Number(m[1]) * 1000 : null;
    },
  },
  {
    source: 'usage-limit',
    read: (line) => {
      const m = /regain access on (\d{4}-\d{2}-\d{2})(?:\s+at\s+(\d{1,2}):(\d{2}))?\s*UTC/i.exec(line);
      if (!m) return null;
      const t = Date.parse(`${m[1]}T${(m[2] ?? '0').padStart(2, '0')}:${m[3] ?? '00'}:00Z`);
      return Number.isFinite(t) ? t : null;
    },
  },
  {
    source: 'usage-limit',
    read: (line, now, zone) => {
      const m = HUMAN.exec(line);
      if (!m) return null;
      const clock = clockOf(m[3]!, m[4], m[5]);
      if (!clock || (!m[4] && !m[5])) return null;
      const day = m[1] ? { mo: MONTHS.indexOf(m[1].toLowerCase()) + 1, d: Number(m[2]) } : null;
      return nextWall(now, clock, validZone(m[6]) ?? zone, day);
    },
  },
  {
    source: 'ratelimit-reset',
    read: (line) => {
      let best: number | null = null;
      for (const m of line.matchAll(/anthropic-ratelimit-[a-z-]+-reset["']?\s*[:=]\s*["']?(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/gi)) {
        const t = Date.parse(m[1]!);
        if (Number.isFinite(t)) best = Math.max(best ?? t, t);
      }
      return best;
    },
  },
  {
    source: 'retry-after',
    read: (line, now) => {
      const m = /\bretry-after["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?|[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT)/i.exec(line);
      if (!m) return null;
      const v = m[1]!;
      if (/^\d/.test(v)) return now + Math.round(Number(v) * 1000);
      const t = Date.parse(v);
      return Number.isFinite(t) ? t : null;
    },
  },
  {
    source: 'retry-delay',
    read: (line, now) => {
      const m = /"retryDelay"\s*:\s*"(\d+(?:\.\d+)?)s"/.exec(line) ?? /\bPlease retry in (\d+(?:\.\d+)?)\s*s\b/i.exec(line);
      return m ? now + Math.round(Number(m[1]) * 1000) : null;
    },
  },
];

/** The reset one line announces, or null. `zone`: of a time named without one (default: the process's). Never throws. */
export const resetOfLine = (line: string, now: number, zone?: string): QuotaReset | null => {
  const text = line.length > MAX_LINE ? line.slice(0, MAX_LINE) : line;
  for (const r of READERS) {
    const until = r.read(text, now, zone);
    if (until !== null && Number.isFinite(until)) return { until, source: r.source };
  }
  return null;
};

/**
 * The reset an attempt's output announces: the latest of its lines' that is still ahead and
 * believable (a reset in the past is history, not a wait), or null.
 */
export const resetOfLines = (lines: readonly string[], now: number, zone?: string): QuotaReset | null => {
  let best: QuotaReset | null = null;
  for (const line of lines) {
    const r = resetOfLine(line, now, zone);
    if (!r || r.until <= now || r.until > now + MAX_QUOTA_WAIT_MS) continue;
    if (!best || r.until > best.until) best = r;
  }
  return best;
};
