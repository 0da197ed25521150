import type { Token } from '../../text/theme.js';
import { fit, pad } from '../../text/layout.js';
import type { OverviewRow } from '../../many/rows.js';
import { urgencyOfRow } from '../../many/rows.js';
import { quoteForShell } from '../../many/ssh.js';
import type { Urgency, WorkspaceSummary } from '../../many/summary.js';

// The overview drawn as lines (docs/many.md): one row per workspace, most urgent first, in
// columns that fit 80 columns; from 100 the alarms get a column of their own, and the
// selected row's alarms and reasons are spelled out under the list at every width. Pure:
// components/Overview.tsx draws these lines and never decides.

export interface OvLine {
  text: string;
  tok?: Token;
  selected?: boolean;
}

const URGENCY_WORD: Record<Urgency, string> = { 'needs-you': 'NEEDS YOU', unreachable: 'UNREACH', failing: 'FAILING', running: 'running', idle: 'idle', done: 'done' };
const URGENCY_TOK: Record<Urgency, Token | undefined> = { 'needs-you': 'danger', unreachable: 'fail', failing: 'fail', running: 'accent', idle: undefined, done: 'ok' };

const two = (n: number): string => String(n).padStart(2, '0');

/** An ETA as a clock time today, else its date: the operator's local time. */
export function etaWord(iso: string | null, now: number): string {
  if (!iso) return '-';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '-';
  const today = new Date(now);
  return d.toDateString() === today.toDateString() ? `${two(d.getHours())}:${two(d.getMinutes())}` : `${two(d.getMonth() + 1)}-${two(d.getDate())}`;
}

const money = (usd: number | null): string => (usd === null || usd === 0 ? '-' : usd >= 100 ? `$${Math.round(usd)}` : `$${usd.toFixed(2)}`);
const where = (s: WorkspaceSummary): string => `${s.phase === null ? '' : `P${s.phase}`}${s.batch === null ? '' : `${s.phase === null ? '' : ' '}B${s.batch}`}` || '-';

/** Column widths for `width`: the name takes what the fixed columns leave. */
function columns(width: number) {
  const alarms = width >= 100 ? Math.min(40, width - 80) : 0;
  const fixed = 10 + 10 + 7 + 8 + 16 + 7 + 5 + (alarms ? alarms + 1 : 0);
  return { name: Math.max(8, width - fixed - 1), alarms };
}

const nameOf = (r: OverviewRow): string => (r.state.kind === 'ok' ? r.state.summary.name : r.state.kind === 'unreachable' && r.state.last ? r.state.last.name : r.entry.label);

export function overviewRowText(r: OverviewRow, width: number, now: number): string {
  const c = columns(width);
  const head = `${pad(URGENCY_WORD[urgencyOfRow(r)], 9)} ${pad(fit(nameOf(r), c.name), c.name)} ${pad(fit(r.host, 9), 9)} `;
  const rest = width - 9 - 1 - c.name - 1 - 10;
  if (r.state.kind === 'loading') return head + 'reading...';
  if (r.state.kind === 'unreachable') return head + fit(`unreachable: ${r.state.reason}`, rest);
  if (r.state.kind === 'error') return head + fit(`error: ${r.state.reason}`, rest);
  const s = r.state.summary;
  const n = (v: number) => pad(String(v), 3) + ' ';
  const cols = `${pad(fit(where(s), 6), 6)} ${pad(`${s.done}/${s.total}`, 7)} ${n(s.partial)}${n(s.failed)}${n(s.needsYou)}${n(s.running)}${pad(money(s.spendUsd), 6)} ${pad(etaWord(s.eta, now), 5)}`;
  return head + cols + (c.alarms ? ` ${fit(s.alarms.join(', '), c.alarms)}` : '');
}

export function headerLine(width: number): string {
  const c = columns(width);
  return `${pad('', 9)} ${pad('workspace', c.name)} ${pad('host', 9)} ${pad('where', 6)} ${pad('done', 7)} ${pad('prt', 4)}${pad('err', 4)}${pad('you', 4)}${pad('run', 4)}${pad('spend', 6)} ${pad('ETA', 5)}${c.alarms ? ` ${pad('alarms', c.alarms)}` : ''}`;
}

/** What the selected row says beyond its columns: its alarms, why it is unreachable, what Enter does. */
export function selectedNote(r: OverviewRow | undefined): string {
  if (!r) return '';
  const remote = r.entry.kind === 'ssh';
  const enter = remote ? 'enter: its status, read-only' : 'enter: open its control room (esc comes back)';
  switch (r.state.kind) {
    case 'loading':
      return `${r.entry.label}: reading its status...`;
    case 'unreachable': {
      const since = new Date(r.state.since);
      return `${r.entry.label}: unreachable since ${two(since.getHours())}:${two(since.getMinutes())}:${two(since.getSeconds())} (${r.state.reason}); tried again with backoff`;
    }
    case 'error':
      // checkroom's own message names the directory already.
      return r.state.reason.includes(r.entry.dir) ? r.state.reason : `${r.entry.label}: ${r.state.reason}`;
    default: {
      const a = r.state.summary.alarms;
      return `${r.entry.label}: ${a.length ? a.join(', ') : 'no alarms'} · ${enter}`;
    }
  }
}

export function titleLine(rows: readonly OverviewRow[]): string {
  const hosts = new Set(rows.map((r) => r.host)).size;
  const by = (u: Urgency) => rows.filter((r) => urgencyOfRow(r) === u).length;
  const parts = [`${rows.length} workspace${rows.length === 1 ? '' : 's'} on ${hosts} host${hosts === 1 ? '' : 's'}`];
  if (by('needs-you')) parts.push(`${by('needs-you')} need${by('needs-you') === 1 ? 's' : ''} you`);
  if (by('unreachable')) parts.push(`${by('unreachable')} unreachable`);
  if (by('failing')) parts.push(`${by('failing')} failing`);
  return `checkroom overview · ${parts.join(' · ')}`;
}

/** The whole overview at `width` × `height`: title, column header, the rows (windowed round the cursor), the note, the keys. */
export function overviewLines(rows: readonly OverviewRow[], cursor: number, width: number, height: number, now: number, ascii: boolean): OvLine[] {
  const listRows = Math.max(1, height - 5);
  const top = Math.min(Math.max(0, cursor - listRows + 1), Math.max(0, rows.length - listRows));
  const out: OvLine[] = [{ text: fit(titleLine(rows), width), tok: 'title' }, { text: fit(headerLine(width), width), tok: 'muted' }];
  rows.slice(top, top + listRows).forEach((r, i) => out.push({ text: fit(overviewRowText(r, width, now), width), tok: URGENCY_TOK[urgencyOfRow(r)], selected: top + i === cursor }));
  while (out.length < listRows + 2) out.push({ text: ' ' });
  out.push({ text: fit(selectedNote(rows[cursor]), width), tok: 'muted' });
  out.push({ text: fit(`${ascii ? 'up/down' : '↑↓'} move · enter open · r read again · q quit`, width), tok: 'muted' });
  return out;
}

/** A remote workspace's read-only detail (its status, as its own checkroom said it). */
export function remoteDetailLines(r: OverviewRow, width: number, now: number): OvLine[] {
  const e = r.entry;
  const login = e.kind === 'ssh' ? `${e.user ? `${e.user}@` : ''}${e.host}${e.port ? ` -p ${e.port}` : ''}` : '';
  const out: OvLine[] = [{ text: fit(`${r.host} · read-only status, read over ssh`, width), tok: 'title' }, { text: fit(`directory  ${e.dir}`, width) }];
  const s = r.state.kind === 'ok' ? r.state.summary : r.state.kind === 'unreachable' ? r.state.last : null;
  if (r.state.kind === 'unreachable') out.push({ text: fit(`unreachable: ${r.state.reason}${s ? '; the last status read:' : ''}`, width), tok: 'fail' });
  if (r.state.kind === 'error') out.push({ text: fit(`error: ${r.state.reason}`, width), tok: 'fail' });
  if (s) {
    out.push(
      { text: fit(`workspace  ${s.name}${s.pipeline ? ` (${s.pipeline})` : ''}`, width) },
      { text: fit(`where      phase ${s.phase ?? '-'}, batch ${s.batch ?? '-'}`, width) },
      { text: fit(`cells      ${s.done}/${s.total} done · ${s.partial} partial · ${s.failed} failed · ${s.needsYou} need you · ${s.running} in flight`, width) },
      { text: fit(`spend      ${money(s.spendUsd)} · ETA ${etaWord(s.eta, now)}`, width) },
      { text: fit(`alarms     ${s.alarms.length ? s.alarms.join(', ') : 'none'}`, width) },
    );
  }
  out.push({ text: ' ' }, { text: fit('To drive it, open its control room there:', width), tok: 'muted' });
  // A line to copy: a directory the shell would read otherwise is quoted for it.
  const dir = /^[\w@%+=:,./-]+$/.test(e.dir) ? e.dir : quoteForShell(quoteForShell(e.dir));
  if (e.kind === 'ssh') out.push({ text: fit(`  ssh -t ${login} checkroom ${dir}`, width), tok: 'accent' });
  out.push({ text: ' ' }, { text: fit('esc back · q quit', width), tok: 'muted' });
  return out;
}
