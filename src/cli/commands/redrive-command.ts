import { resolve } from 'node:path';
import type { Cli } from '../args.js';
import { UsageError } from '../args.js';
import type { Out } from './core-commands.js';
import { jsonOut } from '../text-out.js';
import { escapeJsonText } from '../../text/json-escape.js';
import { sanitizeLine } from '../../text/sanitize.js';
import type { TextOptions } from '../../text/layout.js';
import { loadConfig } from '../../pipeline/config/config.js';
import { readRedrive, type RedriveRead } from '../../bulk/read.js';
import { previewJson, previewLines } from '../../bulk/preview.js';
import { BulkFilterError, parseRedrive } from '../../bulk/filter.js';
import { BulkError, undoWords } from '../../bulk/apply.js';
import { BULK_ACTIONS, type BulkAction } from '../../bulk/events.js';
import { openSupervisor, SupervisorError, type Supervisor } from '../../run/supervisor/supervisor.js';
import { isDir, printer } from './run-command.js';
import { pauseBy } from '../../run/supervisor/pause-action.js';
import type { RedriveAsk } from '../../socket/acts.js';
import { appliedBy, viaRoom, type ViaRoom } from './via-room.js';

// `checkroom redrive [dir] <filter> [--action A] [--name N] [--yes] [--json]` and
// `checkroom redrive [dir] --undo NAME|last --yes`, `--drain --yes` (docs/redrive.md): the preview without
// --yes; with it, one named journal record through the supervisor, the driver — a relaunch
// then waits for its runs, which go through the launch gate as the agents' slots free. While a
// control room drives, --yes asks it through its socket (via-room.ts): it reads the filter
// against its own view and applies it with its own supervisor; this command only prints.

export const REDRIVE_JSON_VERSION = 1;

interface Say {
  cli: Cli;
  o: TextOptions;
  out: Out;
  json(doc: object): void;
  fail(why: string, code: number): number;
}

type Refused = { key: string; why: string }[];

const recordLine = (name: string, action: string, count: number): string => `${sanitizeLine(name)}: ${action} ${count} cells, one journal record (undo: checkroom redrive --undo ${sanitizeLine(name)} --yes)`;
const refusedLines = (o: TextOptions, refused: Refused): string => refused.map((x) => `${o.paint('warn', 'not launched')} ${sanitizeLine(x.key)}: ${sanitizeLine(x.why)} (it stays queued)\n`).join('');
const queuedLine = (queued: readonly string[]): string => (queued.length ? `${queued.length} still queued: autopilot or checkroom run --next --auto takes them first\n` : '');
const drainLine = (started: number, queued: number): string => `relaunch queue: ${started} started${queued ? `, ${queued} still queued` : ', now empty'}`;

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
const field = (v: unknown, k: string): unknown => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined);

/** What the driving control room did, worded as this command words its own (its document as --json prints it, with appliedBy). */
function saidByRoom(kind: 'apply' | 'undo' | 'drain', r: Extract<ViaRoom, { kind: 'applied' }>, say: Say): number {
  const { o, out } = say;
  if (say.cli.json) return say.json({ ...r.doc, appliedBy: { pid: r.pid } }), 0;
  const by = appliedBy(r.pid);
  const refused = list<{ key: string; why: string }>(r.doc.refused);
  const queued = list<string>(r.doc.queued);
  if (kind === 'drain') out.write(`${refusedLines(o, refused)}${drainLine(list(r.doc.started).length, queued.length)} ${by}\n`);
  else if (kind === 'undo' || r.doc.done !== true) out.write(`${sanitizeLine(r.message)} ${by}\n`);
  else out.write(`${recordLine(String(field(r.doc.record, 'name')), sanitizeLine(String(field(r.doc.preview, 'action'))), Number(field(r.doc.preview, 'count')))} ${by}\n${refusedLines(o, refused)}${queuedLine(queued)}`);
  return 0;
}

/** `--yes` while a control room drives: it applies the ask; null when none answers (then this process drives). */
async function byRoom(root: string, redrive: RedriveAsk, say: Say, env: NodeJS.ProcessEnv): Promise<number | null> {
  const r = await viaRoom(root, 'redrive', { redrive }, env, 'name fewer cells in the filter (class=, from=/to= and unit= select many at once), or type :redrive in the control room');
  if (r.kind === 'none') return null;
  if (r.kind === 'refused') return say.fail(r.why, 1);
  return saidByRoom(redrive.kind, r, say);
}

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
  return `${snap.readonlyReason ?? 'another checkroom drives this workspace'}; no control socket answered to apply this (a \`checkroom run\` serves none; CHECKROOM_SOCKET=off asks none): stop it, or type :redrive in its terminal`;
}

export async function redriveCommand(cli: Cli, o: TextOptions, out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { root, text } = argsOf(cli);
  const json = (doc: object): void => void jsonOut(out).write(escapeJsonText(JSON.stringify({ version: REDRIVE_JSON_VERSION, ...doc }, null, cli.jsonPretty ? 2 : undefined)) + '\n');
  const fail = (why: string, code: number): number => {
    if (cli.json) json({ error: why });
    else out.write(`${o.paint('fail', 'not done')}: ${sanitizeLine(why)}\n`);
    return code;
  };
  const say: Say = { cli, o, out, json, fail };
  const by = pauseBy('checkroom redrive', env);
  if (cli.undo !== null) {
    if (!cli.yes) throw new UsageError('redrive --undo changes the journal: add --yes (it reverts the whole named action as one record)');
    return (await byRoom(root, { kind: 'undo', which: cli.undo === 'last' ? null : cli.undo, by }, say, env)) ?? undo(root, cli.undo, say);
  }
  if (cli.drain) {
    if (!cli.yes) throw new UsageError('redrive --drain launches agents: add --yes');
    return (await byRoom(root, { kind: 'drain', by }, say, env)) ?? drain(root, say);
  }
  try {
    // Bad words are bad usage here, before any control room is asked.
    if (cli.yes) parseRedrive(text, Date.now());
    const room = cli.yes ? await byRoom(root, { kind: 'apply', text, by }, say, env) : null;
    return room ?? (await apply(root, await readRedrive(root, text, Date.now()), say));
  } catch (err) {
    if (err instanceof BulkFilterError) throw new UsageError(`redrive: ${err.message}`);
    throw err;
  }
}

/** The preview, and with --yes one named record through this process's supervisor. */
async function apply(root: string, read: RedriveRead, say: Say): Promise<number> {
  const { cli, o, out, json, fail } = say;
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
    if (!cli.json) out.write(`${recordLine(r.record.name, p.action, r.record.cells.length)}\n${refusedLines(o, r.refused)}`);
    await r.runs;
    const queued = Object.keys(s.snapshot().ledger.bulk.queue);
    if (cli.json) json({ preview: previewJson(p), done: true, record: { id: r.record.id, name: r.record.name }, refused: r.refused, queued });
    else out.write(queuedLine(queued));
    return 0;
  } catch (err) {
    if (err instanceof SupervisorError || err instanceof BulkError) return fail(err.message, 1);
    throw err;
  } finally {
    await s.close();
  }
}

async function undo(root: string, which: string, { cli, o, out, json, fail }: Say): Promise<number> {
  const s = await driver(root, o, out, true);
  if (typeof s === 'string') return fail(s, 1);
  try {
    const plan = await s.undoRedrive(which === 'last' ? null : which);
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
async function drain(root: string, { cli, o, out, json, fail }: Say): Promise<number> {
  const s = await driver(root, o, out, cli.json);
  if (typeof s === 'string') return fail(s, 1);
  try {
    const d = await s.drainRedrive();
    if (!cli.json) out.write(refusedLines(o, d.refused));
    await d.runs;
    const queued = Object.keys(s.snapshot().ledger.bulk.queue);
    if (cli.json) json({ started: d.started, refused: d.refused, queued });
    else out.write(`${drainLine(d.started.length, queued.length)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof SupervisorError) return fail(err.message, 1);
    throw err;
  } finally {
    await s.close();
  }
}
