import { z } from 'zod';
import { DURATION_HINT, MAX_DURATION_MS, parseDuration } from './duration.js';
import { ALARM_EVENTS, DEFAULT_NOTIFY, type NotifyConfig } from '../notify/types.js';

// `notify:` in checkroom.yaml (docs/notify.md): the commands alarms run and the terminal's
// own alarms. A fragment of its own so the main schema holds one line of it. A bare list is
// the rows alone; a mapping also sets the timeout, the storm cap and the terminal alarms.

const expected = `a duration above 0 of at most 24 days: ${DURATION_HINT}`;
const duration = z.union([z.number(), z.string()], { error: expected }).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms !== null && ms > 0 && ms <= MAX_DURATION_MS) return ms;
  ctx.issues.push({ code: 'custom', input: value, message: expected });
  return z.NEVER;
});

const word = z.string({ error: 'a string' }).min(1, { error: 'a non-empty string' });

// An argument array: a shell string would hand workspace text to a shell (docs/notify.md, Commands).
const rule = z.strictObject({
  on: z.array(z.enum(ALARM_EVENTS), { error: `a list of events: ${ALARM_EVENTS.join(', ')}` }).min(1, { error: 'at least one event' }),
  command: z.array(word, { error: 'an argument array, e.g. [notify-send, checkroom] (never a shell string)' }).min(1, { error: 'at least the program' }),
});

const rules = z.array(rule, { error: 'a list of { on: [events], command: [argv] }' });

const terminal = z.strictObject({
  bell: z.boolean({ error: 'true or false' }).optional(),
  osc: z.union([z.literal(9), z.literal(99), z.literal(777)], { error: 'one of: 9, 99, 777' }).optional(),
  title: z.boolean({ error: 'true or false' }).optional(),
});

const mapping = z.strictObject({
  commands: rules.optional(),
  timeout: duration.optional(),
  storm: z.strictObject({ max: z.int({ error: 'an integer from 1 to 1000' }).min(1).max(1000).optional(), window: duration.optional() }).optional(),
  breaker_open_after: duration.optional(),
  terminal: terminal.optional(),
});

export const notifySchema = z.preprocess((v) => (Array.isArray(v) ? { commands: v } : v), mapping);

export type RawNotify = z.output<typeof notifySchema>;

/** The `notify:` block as the code reads it, defaults filled in; undefined when absent. */
export const notifyOf = (raw: RawNotify | undefined): NotifyConfig | undefined => {
  if (!raw) return undefined;
  const d = DEFAULT_NOTIFY;
  return {
    rules: (raw.commands ?? []).map((r) => ({ on: [...new Set(r.on)], command: r.command })),
    timeoutMs: raw.timeout ?? d.timeoutMs,
    storm: { max: raw.storm?.max ?? d.storm.max, windowMs: raw.storm?.window ?? d.storm.windowMs },
    breakerOpenMs: raw.breaker_open_after ?? d.breakerOpenMs,
    terminal: { bell: raw.terminal?.bell ?? false, osc: raw.terminal?.osc ?? null, title: raw.terminal?.title ?? false },
  };
};
