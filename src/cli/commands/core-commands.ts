import { actionWord } from '../../plan/action-words.js';
import { planOf } from '../../operator/plan.js';
import type { WorkspaceState } from '../../types.js';
import type { WorkspaceConfig } from '../../pipeline/config/types.js';
import { readSources, stateOf, type CacheUse } from '../../workspace.js';
import { planCheckpoint, rewriteCheckpoint } from '../../checkpoint/rewrite.js';
import { unifiedDiff } from '../../checkpoint/line-diff.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { nextLine, noUnitsWhy, partialLine, type TextOptions } from '../../text/layout.js';
import { statusJsonStreamed } from '../json.js';
import { writeJson } from '../json-stream.js';
import { flyingKeys, readScanJournal, type ScanJournal } from '../scan-journal.js';
import { FORESIGHT_MINUTE_MS, foresightKey, scanForesight } from '../scan-foresight.js';
import type { Foresight } from '../../foresight/types.js';
import { NO_OPERATOR_PAUSE, pauseOf, type OperatorPause } from '../../operator/pause.js';
import { NO_OPERATOR_QUEUES, queuesJson, queuesOf, type OperatorQueues } from '../../operator/queues.js';
import type { CostLedger } from '../../run/journal/costs.js';
import type { OperatorRun } from '../../operator/types.js';
import { renderStatus } from '../text.js';
import { UsageError } from '../args.js';
import { presetOf } from '../../pipeline/presets/index.js';
import { sweepAtStart } from '../sweep-at-start.js';
import { jsonOut, type Out } from '../text-out.js';
import { cachedStatus, saveStatus, statusKey, writeCachedStatus, type CachedStatus } from '../status-cache.js';

// The headless faces of the engine: status, plan, partials, checkpoint --write.

export type { Out } from '../text-out.js';

/** The workspace directory argument (default: here); more positionals than `max` is a usage error. */
export const dirArg = (positionals: string[], max = 1): string => {
  if (positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}"`);
  return positionals[0] ?? '.';
};

/** How a headless read runs: `--json=pretty`, and the facts cache (the CLI's `--no-cache`, `--readonly`). */
export interface ReadOptions {
  pretty?: boolean;
  /** Use .checkroom/facts-cache; absent: every artifact is read. */
  cache?: CacheUse;
}

/** `status --json` as printed, compact: a scan and the control socket (src/socket/server.ts) answer with this same text. */
export const statusJsonText = (state: WorkspaceState, costs?: CostLedger, foresight: Foresight | null = null, pause: OperatorPause = NO_OPERATOR_PAUSE, queues: OperatorQueues = NO_OPERATOR_QUEUES): string => {
  const parts: string[] = [];
  writeJson(statusJsonStreamed(state, costs, null, foresight, pause, queues), { write: (s) => parts.push(s) });
  return parts.join('');
};

/**
 * The state as a running control room has it: the disk, and the journal's runs in flight
 * (cli/scan-journal.ts: a scan counted a run in flight as its disk said
 * while the room counted it running and took it out of the next steps). The sources (50k file
 * facts) are not kept while the answer is written.
 */
async function readState(dir: string, cache: CacheUse | undefined): Promise<{ state: WorkspaceState; config: WorkspaceConfig; costs: CostLedger; runs: OperatorRun[]; foresight: Foresight; pause: OperatorPause; queues: OperatorQueues }> {
  const { src, j, at } = await readWithJournal(dir, cache);
  const state = stateOf(src, flyingKeys(j.runs));
  return { state, config: src.config, costs: j.costs, runs: j.runs, foresight: scanForesight(state, src.config, j, at), pause: pauseOf(j.ledger, j.runs), queues: queuesOf(j.ledger) };
}

/** The sources and, read once with them, the journal's spend, runs in flight and fold, at one clock reading. */
async function readWithJournal(dir: string, cache: CacheUse | undefined): Promise<{ src: Awaited<ReturnType<typeof readSources>>; j: ScanJournal; at: number }> {
  const src = await readSources(dir, undefined, cache);
  // The forecast is made at the minute, so a cached answer holds for that minute (cli/scan-foresight.ts).
  const now = Date.now();
  const at = now - (now % FORESIGHT_MINUTE_MS);
  return { src, j: await readScanJournal(src.root, now, src.config), at };
}

/** The state to answer with, or the last answer when nothing it was derived from changed (status-cache.ts). */
async function stateOrCached(
  dir: string,
  cache: CacheUse,
): Promise<{ hit: CachedStatus; scannedAt: number } | { state: WorkspaceState; costs: CostLedger; runs: OperatorRun[]; foresight: Foresight; pause: OperatorPause; queues: OperatorQueues; key: string | null }> {
  const { src, j, at } = await readWithJournal(dir, cache);
  // Drain and pauses key the answer too (docs/drain.md): a pause changes no file the facts cache sees;
  // so do the queues of named actions and redo, as the answer says them.
  const queues = queuesOf(j.ledger);
  const key = statusKey(src, j.costs, j.runs, [foresightKey(j, at), j.ledger?.pause ?? null, queuesJson(queues)]);
  const hit = key ? cachedStatus(src.root, key) : null;
  if (hit !== null) return { hit, scannedAt: src.scan.scannedAt };
  // The sources (50k file facts) are not kept while the answer is written.
  const state = stateOf(src, flyingKeys(j.runs));
  return { state, costs: j.costs, runs: j.runs, foresight: scanForesight(state, src.config, j, at), pause: pauseOf(j.ledger, j.runs), queues, key };
}

/** Compact `status --json` through the facts cache, kept for the next read when its facts were all cached. */
async function statusJsonCached(dir: string, cache: CacheUse, out: Out): Promise<void> {
  const r = await stateOrCached(dir, cache);
  // The stored answer is bytes read from the workspace's .checkroom/: escaped as text would be;
  // a fresh one is escapeJsonText's.
  if ('hit' in r) return writeCachedStatus(r.hit, r.scannedAt, out);
  if (!r.key || !cache.write) return writeJson(statusJsonStreamed(r.state, r.costs, r.runs, r.foresight, r.pause, r.queues), jsonOut(out));
  const parts: Buffer[] = [];
  writeJson(statusJsonStreamed(r.state, r.costs, r.runs, r.foresight, r.pause, r.queues), {
    write: (s) => {
      jsonOut(out).write(s);
      parts.push(Buffer.from(s));
    },
  });
  await saveStatus(r.state.root, r.key, parts);
}

export async function statusCommand(positionals: string[], json: boolean, o: TextOptions, out: Out, r: ReadOptions = {}): Promise<void> {
  if (json && r.cache && !r.pretty) return statusJsonCached(dirArg(positionals), r.cache, out);
  const { state, costs, runs, foresight, pause, queues } = await readState(dirArg(positionals), r.cache);
  if (json) writeJson(statusJsonStreamed(state, costs, runs, foresight, pause, queues), jsonOut(out), r.pretty);
  else out.write(renderStatus(state, o, runs, foresight, pause, queues) + '\n');
}

export async function planCommand(positionals: string[], json: boolean, o: TextOptions, out: Out, r: ReadOptions = {}): Promise<void> {
  // The cells in flight are not next steps (the room's Plan shows them as in flight).
  const { state } = await readState(dirArg(positionals), r.cache);
  if (json) return writeJson(statusJsonStreamed(state).next, jsonOut(out), r.pretty);
  // One entry per cell, as the Plan view lists it (the operator model's plan).
  const plan = planOf(state.next);
  if (plan.length === 0) return out.write(state.units.length === 0 ? `${noUnitsWhy(state)}\n` : 'Nothing to do: every step is done or waiting on a human.\n');
  const lines = plan.map((n, i) => `${String(i + 1).padStart(3)}. ${nextLine(n, o, o.width - 5)}${n.also?.length ? `\n       ${o.paint('muted', sanitizeLine(n.also.map((a) => `also ${actionWord(a.action)}: ${a.reason}`).join('; ')))}` : ''}`);
  out.write(`${o.paint('title', `Next steps for ${sanitizeLine(state.name)}`)} (${plan.length})\n${lines.join('\n')}\n`);
}

export async function partialsCommand(positionals: string[], json: boolean, o: TextOptions, out: Out, r: ReadOptions = {}): Promise<void> {
  const { state } = await readState(dirArg(positionals), r.cache);
  if (json) {
    const { partials, suspects } = statusJsonStreamed(state);
    return writeJson({ partials, suspects }, jsonOut(out), r.pretty);
  }
  const lines: string[] = [];
  lines.push(o.paint('title', `Half-products (${state.partials.length})`) + o.paint('muted', '  verdict · chars · path'));
  for (const p of state.partials) lines.push(...partialLine(p, o));
  if (state.partials.length === 0) lines.push(o.paint('muted', '  none: every existing artifact ends with its marker'));
  if (state.suspects.length) {
    lines.push('', o.paint('title', `Suspicious (marker on a tiny body) (${state.suspects.length})`));
    for (const p of state.suspects) lines.push(...partialLine(p, o));
  }
  out.write(lines.join('\n') + '\n');
}

/**
 * `checkroom checkpoint` without --write: the unified diff of what --write would change,
 * every line of it (the preview printed the new file, so what a rewrite
 * dropped could not be seen). The file's words are escaped, line by line.
 */
export function checkpointPreview(file: string, exists: boolean, old: string | null, text: string, o: TextOptions): string {
  const name = sanitizeLine(file);
  const diff = unifiedDiff(old ?? '', text);
  const what =
    old === null
      ? exists
        ? `${name} cannot be edited in place (over the size cap, binary or not UTF-8): --write rebuilds it whole from the disk`
        : `${name} does not exist: --write creates it from the disk`
      : diff.length
        ? `${name}: --write changes these lines; every other byte stays as it is`
        : `${name} already agrees with the disk: --write changes nothing but its backup`;
  const tok = (l: string) => (l.startsWith('@@') ? 'muted' : l.startsWith('-') ? 'fail' : l.startsWith('+') ? 'ok' : undefined);
  const body = diff.map((l) => {
    const t = tok(l);
    return t ? o.paint(t, sanitizeLine(l)) : sanitizeLine(l);
  });
  const head = diff.length ? [o.paint('muted', `--- ${name} (now)`), o.paint('muted', `+++ ${name} (after --write)`)] : [];
  return [what, ...head, ...body, o.paint('muted', `(preview: nothing written; add --write to replace ${name}, the old one is backed up)`)].join('\n') + '\n';
}

export async function checkpointCommand(positionals: string[], write: boolean, o: TextOptions, out: Out): Promise<void> {
  const dir = dirArg(positionals);
  const src0 = await readSources(dir);
  // A layout with no checkpoint.md (gate files) gets none written into it.
  const preset = presetOf(src0.config.preset);
  if (!preset.has.checkpoint) throw new UsageError(`${preset.words.noCheckpoint}; nothing written — checkroom resume writes the letter to the next session`);
  if (!write) {
    const src = src0;
    const { old, text } = await planCheckpoint(src);
    out.write(checkpointPreview(src.config.sources.checkpoint, src.checkpoint !== null, old, text, o));
    return;
  }
  const src = src0;
  // About to write: temp files of killed atomic writes go first, said.
  const swept = await sweepAtStart(src.root, src.config, src.units);
  if (swept) out.write(`${o.paint('warn', swept)}\n`);
  const r = await rewriteCheckpoint(dir, undefined, src);
  out.write(`wrote ${sanitizeLine(r.path)} from the disk (${r.changed} cell${r.changed === 1 ? '' : 's'} changed)${r.backup ? `; the previous version is in ${r.backup}` : ''}\n`);
}
