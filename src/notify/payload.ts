import { escapeJsonText } from '../text/json-escape.js';
import type { Alarm } from './types.js';

// The JSON a notify command reads on its stdin (docs/notify.md, Payload): one object, one
// line. Every string in it is workspace or agent text at heart, so the document goes through
// escapeJsonText: no control, separator or format character reaches the notifier raw.

export interface AlarmCounts {
  /** Cells escalated and waiting for a human. */
  needsYou: number;
  running: number;
  launchesThisSession: number;
  /** Cells done and in all, when a scan was at hand (batch and phase alarms); else null. */
  done: number | null;
  total: number | null;
  /** Alarms the storm cap held back (a summary's count; 0 otherwise). */
  suppressed: number;
}

export interface PayloadContext {
  workspace: { name: string; root: string };
  counts: AlarmCounts;
}

/** `summary`: the storm cap's "N more alarms suppressed" instead of one alarm. */
export function payloadOf(a: Alarm | { event: 'suppressed'; at: number; reason: string }, ctx: PayloadContext): string {
  const x: Partial<Omit<Alarm, 'event'>> = a;
  const cell = x.unit && x.step ? `${x.unit}/${x.step}` : null;
  const doc = {
    v: 1,
    event: a.event,
    workspace: ctx.workspace.name,
    root: ctx.workspace.root,
    cell,
    unit: x.unit ?? null,
    step: x.step ?? null,
    class: x.class ?? null,
    agent: x.agent ?? null,
    batch: x.batch ?? null,
    phase: x.phase ?? null,
    reason: a.reason,
    at: new Date(a.at).toISOString(),
    key: x.key ?? null,
    counts: ctx.counts,
  };
  return escapeJsonText(JSON.stringify(doc)) + '\n';
}
