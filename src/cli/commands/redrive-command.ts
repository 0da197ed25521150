import { resolve } from 'node:path';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { Out } from './core-commands.js';
import { jsonOut } from '../text-out.js';
import { escapeJsonText } from '../../text/json-escape.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { TextOptions } from '../../text/layout.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { readRedrive } from '../../bulk/read.js';
import { previewLines, type BulkPreview } from '../../bulk/preview.js';
import { BulkFilterError } from '../../bulk/filter.js';
import { BulkError, undoWords } from '../../bulk/apply.js';
import { BULK_ACTIONS, type BulkAction } from '../../bulk/events.js';
import { openSupervisor, SupervisorError, type Supervisor } from '../../run/supervisor/supervisor.js';
import { isDir, printer } from './run-command.js';

// `checkroom redrive [dir] <filter> [--action A] [--name N] [--yes] [--json]` and
// `checkroom redrive [dir] --undo NAME|last --yes`, `--drain --yes` (docs/redrive.md): the preview without
// --yes; with it, one named journal record through the supervisor, the driver — a relaunch
// then waits for its runs, which go through the launch gate as the agents' slots free.

export const REDRIVE_JSON_VERSION = 1;

const previewJson = (p: BulkPreview) => ({
  action: p.action,
  name: p.name,
  filter: p.filter,
  count: p.cells.length,
  costUsd: p.costUsd,
  runMs: p.runMs,
  cells: p.cells.map((c) => ({ unit: c.unit, step: c.step, status: c.status, agent: c.agent, executor: c.executor, lastFailure: c.lastFailure })),
  excluded: p.excluded.map((c) => ({ unit: c.unit, step: c.step, status: c.status, why: c.why })),
});

function argsOf(cli: Cli): { root: string; text: string } {
  const pos = [...cli.positionals];
  const dir = pos.length > 0 && !pos[0]!.includes('=') && isDir(pos[0]!) ? pos.shift()! : '.';
  const stray = pos.find((p) => !p.includes('='));
  if (stray) throw new UsageError(`redrive: "${stray}" is not a filter term (key=value) nor a directory; e.g. checkroom redrive class=RATE_LIMITED from=02:00 to=04:00 --name rate-limit-0200`);
  const extra = [...(cli.action ? [`action=${cli.action}`] : []), ...(cli.name ? [`name=${cli.name}`] : [])];
  if (cli.action && !(BULK_ACTIONS as readonly string[]).includes(cli.action)) throw new UsageError(`--action ${cli.action}: write --action ${BULK_ACTIONS.join('|')}`);
  return { root: resolve(dir), text: [...pos, ...extra].join(' ') };
}

async function driver(root: string, o: TextOptions, out: Out, quiet: boolean): Promise<Supervisor | string> {
  const s = await openSupervisor({ root, config: await loadConfig(root), onEvent: quiet ? undefined : printer(o, out) });
  const snap = s.snapshot();
  if (snap.role === 'driver') return s;
  await s.close();
  return `${snap.readonlyReason ?? 'another checkroom drives this workspace'}: type :redrive there`;
}

export async function redriveCommand(cli: Cli, o: TextOptions, out: Out): Promise<number> {
  const { root, text } = argsOf(cli);
  const json = (doc: object): void => void jsonOut(out).write(escapeJsonText(JSON.stringify({ version: REDRIVE_JSON_VERSION, ...doc }, null, cli.jsonPretty ? 2 : undefined)) + '\n');
  const fail = (why: string, code: number): number => {
    if (cli.json) json({ error: why });
    else out.write(`${o.paint('fail', 'not done')}: ${sanitizeLine(why)}\n`);
    return code;
  };
  if (cli.undo !== null) return undo(root, cli, o, out, json, fail);
  if (cli.drain) return drain(root, cli, o, out, json, fail);
  let read;
  try {
    read = await readRedrive(root, text, Date.now());
  } catch (err) {
    if (err instanceof BulkFilterError) throw new UsageError(`redrive: ${err.message}`);
    throw err;
  }
  const p = read.preview;
  if (!cli.yes || p.cells.length === 0) {
    if (cli.json) json({ preview: previewJson(p), done: false });
    else {
      for (const l of previewLines(p)) out.write(`${sanitizeLine(l)}\n`);
      out.write(p.cells.length ? `nothing done yet: add --yes to ${p.action} these ${p.cells.length} cells as ${sanitizeLine(p.name)}\n` : 'nothing to do: no cell passes the filter\n');
    }
    return 0;
  }
  const s = await driver(root, o, out, cli.json);
  if (typeof s === 'string') return fail(s, 1);
  try {
    const r = await s.redrive({ action: p.action as BulkAction, name: p.name, filter: p.filter, cells: p.cells });
    if (!cli.json) {
      out.write(`${sanitizeLine(r.record.name)}: ${p.action} ${r.record.cells.length} cells, one journal record (undo: checkroom redrive --undo ${sanitizeLine(r.record.name)} --yes)\n`);
      for (const x of r.refused) out.write(`${o.paint('warn', 'not launched')} ${sanitizeLine(x.key)}: ${sanitizeLine(x.why)} (it stays queued)\n`);
    }
    await r.runs;
    const queue = Object.keys(s.snapshot().ledger.bulk.queue);
    if (cli.json) json({ preview: previewJson(p), done: true, record: { id: r.record.id, name: r.record.name }, refused: r.refused, queued: queue });
    else if (queue.length) out.write(`${queue.length} still queued: autopilot or checkroom run --next --auto takes them first\n`);
    return 0;
  } catch (err) {
    if (err instanceof SupervisorError || err instanceof BulkError) return fail(err.message, 1);
    throw err;
  } finally {
    await s.close();
  }
}

async function undo(root: string, cli: Cli, o: TextOptions, out: Out, json: (d: object) => void, fail: (why: string, code: number) => number): Promise<number> {
  if (!cli.yes) throw new UsageError('redrive --undo changes the journal: add --yes (it reverts the whole named action as one record)');
  const s = await driver(root, o, out, true);
  if (typeof s === 'string') return fail(s, 1);
  try {
    const plan = await s.undoRedrive(cli.undo === 'last' ? null : cli.undo);
    if (cli.json) json({ undone: { id: plan.record.id, name: plan.record.name, action: plan.record.action }, back: plan.back, ran: plan.ran });
    else out.write(`${sanitizeLine(undoWords(plan))}\n`);
    return 0;
  } catch (err) {
    if (err instanceof SupervisorError || err instanceof BulkError) return fail(err.message, 1);
    throw err;
  } finally {
    await s.close();
  }
}

/** `--drain --yes`: the queue a relaunch left (a refusing gate, a restart), through the same gate, until it is empty or refused. */
async function drain(root: string, cli: Cli, o: TextOptions, out: Out, json: (d: object) => void, fail: (why: string, code: number) => number): Promise<number> {
  if (!cli.yes) throw new UsageError('redrive --drain launches agents: add --yes');
  const s = await driver(root, o, out, cli.json);
  if (typeof s === 'string') return fail(s, 1);
  try {
    const d = await s.drainRedrive();
    for (const x of cli.json ? [] : d.refused) out.write(`${o.paint('warn', 'not launched')} ${sanitizeLine(x.key)}: ${sanitizeLine(x.why)} (it stays queued)\n`);
    await d.runs;
    const queued = Object.keys(s.snapshot().ledger.bulk.queue);
    if (cli.json) json({ started: d.started, refused: d.refused, queued });
    else out.write(`relaunch queue: ${d.started.length} started${queued.length ? `, ${queued.length} still queued` : ', now empty'}\n`);
    return 0;
  } catch (err) {
    if (err instanceof SupervisorError) return fail(err.message, 1);
    throw err;
  } finally {
    await s.close();
  }
}
