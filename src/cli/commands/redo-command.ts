import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { TextOptions } from '../../text/layout.js';
import type { Out } from './core-commands.js';
import { assertWorkspace, loadWorkspace } from '../../workspace.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { readJournal } from '../../run/journal/journal.js';
import { replayJournal } from '../../run/journal/ledger-fold.js';
import { acquireDriverLock } from '../../run/supervisor/lock.js';
import { gatherRedo } from '../../redo/gather.js';
import { applyRedo } from '../../redo/apply.js';
import { diskPorts } from '../../redo/ports.js';
import { checkOverride } from '../../redo/override.js';
import { redoJson, redoLines, redoTitle, type RedoShown } from '../../redo/words.js';
import { RedoError, type RedoMove } from '../../redo/types.js';
import { pauseBy } from '../../run/supervisor/pause-action.js';
import type { RedoAsk } from '../../socket/acts.js';
import { appliedBy, viaRoom, type ViaRoom } from './via-room.js';
import { sanitizeLine } from '../../text/sanitize.js';
import { toJson } from '../json.js';

// `checkroom redo [dir] <unit> <step> [--agent A] [--prompt P] [--yes] [--json]`: the same
// preview as D in the control room; --yes applies it. It writes, so it takes the driver lock
// as `checkroom run` does. While a control room drives the workspace, --yes asks it through its
// socket (via-room.ts): it previews and applies the redo as D does there, its journal, its
// queue; another driver without a socket refuses, and says to redo there (docs/redo.md).
// Exit 0 done or previewed, 1 refused, 2 bad usage.

/** The control room's redo, printed as this command prints its own: the preview it applied, then what it did. */
function saidByRoom(cli: Cli, o: TextOptions, out: Out, r: Extract<ViaRoom, { kind: 'applied' }>): number {
  if (cli.json) return out.write(toJson({ ...r.doc, appliedBy: { pid: r.pid } }) + '\n'), 0;
  const p = r.doc as unknown as RedoShown;
  out.write(`${o.paint('accent', sanitizeLine(redoTitle(p)))}\n${redoLines(p).map((l) => `  ${sanitizeLine(l)}`).join('\n')}\n`);
  out.write(`${o.paint('ok', 'done')}: ${sanitizeLine(r.message)} ${appliedBy(r.pid)}\n`);
  return 0;
}

export async function redoCommand(cli: Cli, o: TextOptions, out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const p = cli.positionals;
  if (p.length < 2 || p.length > 3) throw new UsageError('redo needs a cell: checkroom redo [dir] <unit> <step> [--agent A] [--prompt P] [--yes]');
  const [dir, unit, step] = p.length === 3 ? p : ['.', p[0], p[1]];
  const root = await assertWorkspace(dir);
  const config = await loadConfig(root);
  const ws = await loadWorkspace(root, { config });
  if (!ws.cells.some((c) => c.unit === unit && c.step === step)) {
    throw new UsageError(`no cell ${sanitizeLine(unit)} ${sanitizeLine(step)} in this workspace; units: ${ws.units.slice(0, 6).join(', ')}…, steps: ${ws.pipeline.steps.map((s) => s.id).join(', ')}`);
  }
  let override;
  try {
    override = await checkOverride(root, config, { ...(cli.agent !== null ? { agent: cli.agent } : {}), ...(cli.prompt !== null ? { prompt: cli.prompt } : {}) });
  } catch (err) {
    if (err instanceof RedoError) throw new UsageError(err.message);
    throw err;
  }
  if (cli.yes) {
    const ask: RedoAsk = { unit, step, agent: cli.agent, prompt: cli.prompt, by: pauseBy('checkroom redo', env) };
    const r = await viaRoom(root, 'redo', { redo: ask }, env, 'give a shorter prompt path, or redo in the control room (D on the cell)');
    if (r.kind === 'applied') return saidByRoom(cli, o, out, r);
    if (r.kind === 'refused') {
      if (cli.json) out.write(toJson({ error: r.why }) + '\n');
      else out.write(`${o.paint('fail', 'refused')}: ${sanitizeLine(r.why)} (nothing was touched here)\n`);
      return 1;
    }
  }
  const lock = cli.yes ? acquireDriverLock(root) : null;
  try {
    if (lock?.role === 'readonly') {
      out.write(`${o.paint('fail', 'cannot redo')}: ${sanitizeLine(lock.reason ?? 'another checkroom drives this workspace')}; or redo there: D on the cell, or :redo ${sanitizeLine(unit)}/${sanitizeLine(step)} (nothing was touched)\n`);
      return 1;
    }
    const ledger = replayJournal((await readJournal(root)).events, Date.now(), { breaker: config.breaker, limits: config.limits });
    const preview = await gatherRedo(ws, ledger, { unit, step }, override);
    let applied: { id: string; moves: RedoMove[] } | null = null;
    let failed: string | null = preview.refusal;
    if (cli.yes && !failed) {
      try {
        applied = await applyRedo(root, preview, diskPorts(root, config));
      } catch (err) {
        if (!(err instanceof RedoError)) throw err;
        failed = err.message;
      }
    }
    if (cli.json) {
      out.write(toJson(redoJson(preview, applied)) + '\n');
      return failed ? 1 : 0;
    }
    out.write(`${o.paint('accent', redoTitle(preview))}\n${redoLines(preview).map((l) => `  ${l}`).join('\n')}\n`);
    if (failed) out.write(`${o.paint('fail', 'refused')}: ${failed}\n`);
    else if (applied) out.write(`${o.paint('ok', 'done')}: ${applied.moves.length} backed up, ${preview.cells.length} queued (the next checkroom or autopilot launches them in this order; u in the control room undoes it)\n`);
    else out.write(o.paint('muted', '(preview: nothing was touched; add --yes to redo)\n'));
    return failed ? 1 : 0;
  } finally {
    lock?.release();
  }
}
