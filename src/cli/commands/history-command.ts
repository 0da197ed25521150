import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import { dirArg, type Out } from './core-commands.js';
import { jsonOut } from '../text-out.js';
import { escapeJsonText } from '../../text/json-escape.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { formatMinute } from '../../text/local-time.js';
import { loadWorkspace, assertWorkspace } from '../../workspace.js';
import { readJournal, type JournalEvent } from '../../run/journal/journal.js';
import { planOf } from '../../operator/plan.js';
import { actionWord } from '../../plan/action-words.js';
import type { PlanAction } from '../../types.js';
import { historyOf } from '../../history/timeline.js';
import { filterRows, parseMoment, SinceError, type HistoryFilter } from '../../history/filter.js';
import { clockOf, rowText } from '../../history/words.js';
import { historyJson, HISTORY_JSON_VERSION } from '../../history/json.js';
import { digestLines, digestOf, lastSessionEnd, needsFirst } from '../../history/digest.js';
import { pastCells } from '../../history/past.js';
import { loadConfig } from '../../pipeline/config/config.js';

// `checkroom history` and `checkroom digest` (docs/history.md): the journal as a timeline, and
// what changed since the last session ended. Both read the journal once; nothing is written.

const since = (cli: Cli, now: number, events: readonly JournalEvent[]): { at: number; words: string } | null => {
  if (cli.since === null) return null;
  if (cli.since === 'last') {
    const end = lastSessionEnd(events);
    return end === null
      ? { at: 0, words: 'the journal began (no session has ended yet)' }
      : { at: end, words: `the last session ended (${formatMinute(new Date(end))})` };
  }
  try {
    const at = parseMoment(cli.since, now);
    return { at, words: `${formatMinute(new Date(at))}` };
  } catch (err) {
    if (err instanceof SinceError) throw new UsageError(`--since: ${err.message}, or "last" (the last session's end)`);
    throw err;
  }
};

export async function historyCommand(cli: Cli, out: Out): Promise<number> {
  const root = await assertWorkspace(dirArg(cli.positionals));
  const now = Date.now();
  const { events, warnings } = await readJournal(root);
  const from = since(cli, now, events);
  const filter: HistoryFilter = { since: from?.at ?? null, cell: cli.cell };
  // The workspace's breaker settings say when a breaker tripped; an unreadable config, the defaults.
  const breaker = await loadConfig(root).then(
    (c) => c.breaker,
    () => undefined,
  );
  const h = historyOf(events, breaker);
  const shown = filterRows(h.rows, filter);
  if (cli.json) {
    const doc = historyJson(h.rows, shown, filter, warnings);
    jsonOut(out).write(escapeJsonText(JSON.stringify(doc, null, cli.jsonPretty ? 2 : undefined)) + '\n');
    return 0;
  }
  for (const w of warnings) out.write(`warning: ${sanitizeLine(w)}\n`);
  if (!shown.length) {
    out.write(
      `${events.length ? 'nothing in the journal matches' : 'the journal is empty: nothing was launched here yet'}${from ? ` since ${from.words}` : ''}${cli.cell ? ` for ${sanitizeLine(cli.cell)}` : ''}\n`,
    );
    return 0;
  }
  let day = '';
  for (const i of shown) {
    const row = h.rows[i];
    const d = formatMinute(new Date(row.at)).slice(0, 10);
    if (d !== day) out.write(`${(day = d)}\n`);
    out.write(`${clockOf(row.at)}  ${sanitizeLine((row.key ?? row.agent ?? '').padEnd(16))} ${row.kind.padEnd(9)} ${sanitizeLine(rowText(row))}\n`);
  }
  out.write(`${shown.length} of ${h.rows.length} rows (history JSON v${HISTORY_JSON_VERSION}: --json)\n`);
  return 0;
}

export async function digestCommand(cli: Cli, out: Out): Promise<number> {
  const root = await assertWorkspace(dirArg(cli.positionals));
  const now = Date.now();
  const { events } = await readJournal(root);
  const from = since({ ...cli, since: cli.since ?? 'last' }, now, events)!;
  const d = digestOf(events, from.at, from.words);
  const ws = await loadWorkspace(root);
  const still = pastCells(events, now).status;
  // The escalations still standing: each cell's last, while the journal leaves it escalated.
  const lastOf = new Map(digestOf(events, 0, '').escalated.map((e) => [e.key, e]));
  const escalations = [...lastOf.values()].filter((e) => still.get(e.key) === 'needs_human');
  const needs = needsFirst({ escalations, plan: planOf(ws.next) }, (a) => actionWord(a as PlanAction));
  if (cli.json) {
    jsonOut(out).write(
      escapeJsonText(
        JSON.stringify(
          {
            version: HISTORY_JSON_VERSION,
            since: new Date(d.since).toISOString(),
            sinceWords: d.sinceWords,
            launches: d.launches,
            done: d.done,
            failed: d.failed,
            escalated: d.escalated,
            spentUsd: d.spentUsd,
            needsFirst: needs,
          },
          null,
          cli.jsonPretty ? 2 : undefined,
        ),
      ) + '\n',
    );
    return 0;
  }
  for (const l of digestLines(d, needs)) out.write(`${sanitizeLine(l)}\n`);
  return 0;
}
