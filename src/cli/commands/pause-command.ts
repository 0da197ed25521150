import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../../pipeline/config/load.js';
import { appendJournal, readJournal } from '../../run/journal/journal.js';
import { acquireDriverLock } from '../../run/supervisor/lock.js';
import { pauseBy, pauseRecordOf, pauseRequestError, pauseWords, type PauseRequest } from '../../run/supervisor/pause-action.js';
import { openControl } from '../../socket/client.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { Out } from './core-commands.js';
import { socketOff } from './socket-commands.js';

// `checkroom drain [dir] [--off]` and `checkroom pause|resume [dir] --all|--agent A|--cell
// U/S|--executor E` (docs/drain.md). A control room that drives the workspace applies them
// through its socket (one decision, its journal, its header at once); with none running, the
// record is appended under the driver lock, as the driver would, and the next driver folds it.
// `checkroom resume` with none of those flags is still the RESUME.md letter.

/** Whether `resume` names a pause to end (else it is the letter). */
export const resumesPause = (cli: Cli): boolean => cli.all || cli.agent !== null || cli.cell !== null || cli.executor !== null;

function requestOf(cli: Cli): PauseRequest {
  const via = `checkroom ${cli.command}`;
  if (cli.command === 'drain') {
    if (cli.all || cli.agent || cli.cell || cli.executor) throw new UsageError('drain holds everything: it takes --off only (checkroom pause names one scope)');
    return { scope: 'drain', target: null, on: !cli.off, by: pauseBy(via) };
  }
  if (cli.off) throw new UsageError(`--off goes with drain; to end a pause: checkroom resume --all|--agent A|--cell U/S|--executor E`);
  const named = [cli.all ? 'all' : null, cli.agent, cli.cell, cli.executor].filter((x) => x !== null);
  if (named.length !== 1) throw new UsageError(`${cli.command} needs one of --all, --agent A, --cell UNIT/STEP, --executor E`);
  const on = cli.command === 'pause';
  if (cli.all) return { scope: 'all', target: null, on, by: pauseBy(via) };
  if (cli.agent) return { scope: 'agent', target: cli.agent, on, by: pauseBy(via) };
  if (cli.executor) return { scope: 'executor', target: cli.executor, on, by: pauseBy(via) };
  return { scope: 'cell', target: cli.cell, on, by: pauseBy(via) };
}

/** No control room: the record under the driver lock; drained at once when no run is left in flight. */
async function underLock(root: string, r: PauseRequest): Promise<string> {
  const config = await loadConfig(root);
  const bad = pauseRequestError(config, r);
  if (bad) throw new Error(bad);
  const lock = acquireDriverLock(root);
  if (lock.role !== 'driver') throw new Error(`${lock.reason ?? 'another checkroom drives this workspace'}; it serves no control socket to apply this (a \`checkroom run\` does not): stop it, or use its terminal`);
  try {
    const { replayJournal } = await import('../../run/journal/ledger-fold.js');
    const now = Date.now();
    const ledger = replayJournal((await readJournal(root)).events, now, { breaker: config.breaker, limits: config.limits });
    const rec = pauseRecordOf(ledger, r, now);
    const running = ledger.liveRuns.length;
    if (rec) await appendJournal(root, rec);
    let said = pauseWords(r, rec !== null, running);
    // Nothing runs, so nothing will end to announce it: drained now, journalled once like the driver's.
    if (rec && r.scope === 'drain' && r.on && running === 0) {
      await appendJournal(root, { type: 'drained', at: now, since: now });
      said = 'drained: nothing runs; change what you need, then checkroom drain --off';
    }
    return said;
  } finally {
    lock.release();
  }
}

export async function pauseCommand(cli: Cli, out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (cli.positionals.length > 1) throw new UsageError(`unexpected argument "${cli.positionals[1]}"`);
  const root = resolve(cli.positionals[0] ?? '.');
  if (!existsSync(root)) throw new UsageError(`no workspace at ${root}`);
  const r = requestOf(cli);
  const opened = socketOff(env) ? null : await openControl(root, 'pause', { env, timeoutMs: 5000, body: { pause: r } });
  if (opened?.ok) {
    opened.sock.destroy();
    out.write(`${sanitizeLine(opened.header.message ?? 'done')} (applied by the control room, pid ${opened.header.pid ?? '?'})\n`);
    return 0;
  }
  // A control room that answered and refused says why (read-only, an unknown agent): not applied behind its back.
  if (opened && !opened.ok && opened.why.startsWith('the control room refused')) throw new Error(opened.why);
  out.write(`${sanitizeLine(await underLock(root, r))}\n`);
  return 0;
}
