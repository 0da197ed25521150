import type { JournalEvent } from '../run/journal/journal.js';
import { cellKey } from '../types.js';
import { money } from './words.js';

// "While you were away" (docs/history.md, The digest): what changed since a moment, usually
// the end of the last session: cells done, attempts failed, escalations, money spent, and
// what needs the operator first (the caller's operator model decides that, not the journal).

export interface Digest {
  since: number;
  /** What `since` is: "the last session ended", "2h ago". */
  sinceWords: string;
  done: string[];
  /** Failed attempts (not cancelled), by cell, oldest first. */
  failed: { key: string; class: string }[];
  escalated: { key: string; class: string; reason: string }[];
  spentUsd: number;
  /** Runs that reported a cost. */
  reported: number;
  launches: number;
}

/** The moment the last session ended, or null when none ended (the journal's start then). */
export function lastSessionEnd(events: readonly JournalEvent[]): number | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type === 'session' && e.kind === 'stop') return e.at;
  }
  return null;
}

export function digestOf(events: readonly JournalEvent[], since: number, sinceWords: string): Digest {
  const done = new Set<string>();
  const failed: Digest['failed'] = [];
  const escalated: Digest['escalated'] = [];
  const cost = new Map<string, number>();
  let launches = 0;
  for (const e of events) {
    if (e.at < since) continue;
    if (e.type === 'launch') launches++;
    else if (e.type === 'exit') {
      const key = cellKey(e.unit, e.step);
      if (e.class === 'SUCCESS') done.add(key);
      else if (e.class !== 'CANCELLED') failed.push({ key, class: e.class });
    } else if (e.type === 'escalate') escalated.push({ key: cellKey(e.unit, e.step), class: e.class, reason: e.reason });
    else if (e.type === 'agent_facts' && e.costUsd !== null) cost.set(e.runId, e.costUsd);
  }
  let spentUsd = 0;
  for (const c of cost.values()) spentUsd += c;
  return { since, sinceWords, done: [...done], failed, escalated, spentUsd, reported: cost.size, launches };
}

const list = (keys: readonly string[], max = 4): string => (keys.length <= max ? keys.join(', ') : `${keys.slice(0, max).join(', ')} +${keys.length - max}`);

/** The digest in a few lines; `needs`: what needs the operator first, from the operator model. */
export function digestLines(d: Digest, needs: string | null): string[] {
  const quiet = d.launches === 0 && d.escalated.length === 0;
  const lines = [
    `since ${d.sinceWords}: ${quiet ? 'nothing ran' : `${d.launches} launch${d.launches === 1 ? '' : 'es'}, ${d.done.length} done, ${d.failed.length} failed, ${d.escalated.length} escalated${d.reported ? `, ${money(d.spentUsd)} spent` : ''}`}`,
  ];
  if (d.done.length) lines.push(`  done: ${list(d.done)}`);
  if (d.failed.length) lines.push(`  failed: ${list(d.failed.map((f) => `${f.key} ${f.class}`))}`);
  if (d.escalated.length) lines.push(`  escalated: ${list(d.escalated.map((x) => `${x.key} ${x.class}`))}`);
  if (needs) lines.push(`  needs you first: ${needs}`);
  return lines;
}

/** What needs the operator first, from the operator model: the first escalation, else the plan's first step. */
export function needsFirst(
  m: {
    escalations: readonly { key: string; class: string; reason: string }[];
    plan: readonly { unit: string | null; step: string | null; action: string; reason: string }[];
  },
  words: (action: string) => string,
): string | null {
  const e = m.escalations[0];
  if (e) return `${e.key} escalated as ${e.class}: ${e.reason}${m.escalations.length > 1 ? ` (+${m.escalations.length - 1} more escalated)` : ''}`;
  const p = m.plan[0];
  if (!p) return null;
  return `${words(p.action)} ${p.unit ?? ''}${p.step ? ` ${p.step}` : ''}: ${p.reason}`.replace(/\s+:/, ':');
}
