import stringWidth from 'string-width';
import type { TextOptions } from '../text/layout.js';
import { fit, nextLine, pad } from '../text/layout.js';
import { sanitizeLine } from '../text/sanitize.js';
import type { RecoverReport } from './report.js';
import { PRESETS, type ReportDraw } from '../pipeline/presets/index.js';
import { regressionsText } from '../state/where-words.js';
import { wrapLine } from '../text/wrap.js';


// The recovery report for a terminal: one screen where it can be, every workspace string
// sanitized, readable without colour (words carry the meaning, colour only repeats it).

const SHOW = 5;

export const formatAge = (ms: number | null): string => {
  if (ms === null) return 'age unknown';
  const m = Math.floor(ms / 60000);
  if (m < 60) return `${m}m old`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m old`;
  return `${Math.floor(h / 24)}d ${h % 24}h old`;
};

/** Words into lines of at most `w` columns (a longer word gets a line of its own). */
function wrap(text: string, w: number): string[] {
  const out: string[] = [];
  let cur = '';
  for (const word of text.split(' ')) {
    if (cur && stringWidth(`${cur} ${word}`) > w) {
      out.push(cur);
      cur = word;
    } else cur = cur ? `${cur} ${word}` : word;
  }
  if (cur) out.push(cur);
  return out;
}

const more = (n: number, o: TextOptions): string[] => (n > 0 ? [o.paint('muted', `    … ${n} more`)] : []);

/** Fit the plain text when a line is too wide: cutting a coloured line could split an escape sequence. */
const fitLine =
  (w: number) =>
  (s: string): string =>
    // eslint-disable-next-line no-control-regex -- it strips the SGR sequences this renderer painted
    stringWidth(s) <= w ? s : fit(s.replace(/\u001b\[[0-9;]*m/g, ''), w);

/** Section 1 of the report: each source of truth, how fresh it is and whether the disk agrees. */
function sourceLines(r: RecoverReport, o: TextOptions, line: (s: string) => string): string[] {
  const { paint } = o;
  const L: string[] = [];
  const ok = (s: string) => paint('ok', s);
  const warn = (s: string) => paint('warn', s);
  const bad = (s: string) => paint('fail', s);
  L.push('', paint('title', '1 Sources'));
  const s = r.sources;
  L.push(
    line(
      `  ${pad(sanitizeLine(s.resume.path), 14)} ${
        s.resume.exists
          ? `${formatAge(s.resume.ageMs)}${s.resume.generatedAt ? ` (generated ${sanitizeLine(s.resume.generatedAt)})` : ''}; ${s.resume.disagreements.length ? warn(`${s.resume.disagreements.length} statements the disk contradicts`) : ok('agrees with the disk')}`
          : warn('missing')
      }`,
    ),
  );
  for (const d of s.resume.disagreements.slice(0, SHOW)) L.push(line(paint('muted', `    - ${sanitizeLine(d)}`)));
  L.push(...more(s.resume.disagreements.length - SHOW, o));
  const cp = s.checkpoint;
  // An unreadable checkpoint.md agrees with nothing: say why it yielded nothing instead.
  const cpState = cp.unreadable
    ? bad(`unreadable: ${sanitizeLine(cp.unreadable)}`)
    : cp.exists
      ? `updated ${sanitizeLine(cp.lastUpdate ?? '?')}; ${cp.discrepancies ? warn(`${cp.discrepancies} discrepancies with the disk`) : ok('agrees with the disk')}${cp.unknownUnits.length ? warn(`; misses ${cp.unknownUnits.map(sanitizeLine).join(', ')}`) : ''}`
      : bad('missing');
  if (!r.sources.gates) L.push(line(`  ${pad(sanitizeLine(cp.path), 14)} ${cpState}`));
  if (s.todos) {
    const t = s.todos;
    const body = t.ok
      ? `${t.ready.length} ready (${fit(t.ready.map(sanitizeLine).join(', ') || 'none', 40)})${t.readyContradicted.length ? warn(`, ${t.readyContradicted.length} contradicted by the disk (${fit(t.readyContradicted.map((x) => sanitizeLine(x.todoId)).join(', '), 40)})`) : ''}; ${t.disagreements.length ? warn(`${t.disagreements.length} disagree with the disk`) : ok('agrees with the disk')}${t.dangling.length ? warn(`; ${t.dangling.length} dangling dependencies`) : ''}`
      : warn(`unreadable: ${sanitizeLine(t.warnings[0]?.message ?? 'unknown error')}`);
    L.push(line(`  ${pad('todo table', 14)} ${sanitizeLine(t.path.startsWith(r.root) ? t.path.slice(r.root.length + 1) : t.path)}: ${body}`));
  } else L.push(line(`  ${pad('todo table', 14)} ${paint('muted', 'none (optional)')}`));
  if (!r.sources.gates) L.push(line(`  ${pad('filesystem', 14)} ${s.scan.units} chapters, ${s.scan.files} of ${s.scan.cells} artifacts on disk`));
  const j = s.journal;
  L.push(
    line(
      `  ${pad('journal', 14)} ${j.events ? `${j.events} event${j.events === 1 ? '' : 's'}, ${j.decisions} decision${j.decisions === 1 ? '' : 's'}` : paint('muted', 'none')}${j.breakers.length ? bad(`; breakers: ${j.breakers.map((b) => `${sanitizeLine(b.agent)} ${sanitizeLine(b.detail)}`).join(', ')}`) : ''}${j.orphans.length ? warn(`; ${j.orphans.length} run${j.orphans.length === 1 ? '' : 's'} died without reporting (${j.orphans.map((x) => `${sanitizeLine(x.unit)} ${sanitizeLine(x.step)}`).join(', ')})`) : ''}${j.warnings.length ? warn(`; ${j.warnings.length} warning${j.warnings.length === 1 ? '' : 's'}`) : ''}`,
    ),
  );
  // Lines the journal reader could not use are said here, not dropped without a word; the
  // file keeps every byte of them.
  for (const x of j.warnings.slice(0, SHOW)) L.push(line(warn(`    ! ${sanitizeLine(x)}`)));
  L.push(...more(j.warnings.length - SHOW, o));
  const sch = r.sources.scheduler;
  if (sch) {
    // The scheduler as a fourth source.
    const body = sch.error
      ? warn(`cannot be asked: ${sanitizeLine(sch.error)}`)
      : `${sch.jobs.length} job${sch.jobs.length === 1 ? '' : 's'} of this workspace; ${sch.findings.length ? warn(`${sch.findings.length} disagree with the cells`) : ok('agrees with the disk')}`;
    L.push(line(`  ${pad(sch.executor, 14)} ${body}`));
    for (const f of sch.findings.slice(0, SHOW)) L.push(line(paint('muted', `    - ${sanitizeLine(f.unit)} ${sanitizeLine(f.step)}: ${sanitizeLine(f.note)}`)));
    L.push(...more(sch.findings.length - SHOW, o));
  }
  return L;
}

export function renderRecover(r: RecoverReport, o: TextOptions): string {
  const { paint } = o;
  const w = o.width;
  const line = fitLine(w);
  const L: string[] = [];
  const ok = (s: string) => paint('ok', s);
  const warn = (s: string) => paint('warn', s);
  const bad = (s: string) => paint('fail', s);
  L.push(paint('title', `checkroom recover · ${sanitizeLine(r.name)}`) + (r.dryRun ? paint('warn', '  (dry run: nothing was changed)') : ''));
  L.push(r.interrupted ? warn('The last session was interrupted: recovering from disk.') : ok('No sign of an interruption.'));
  L.push(...sourceLines(r, o, line));

  // The preset's own section (gate-file workflows); a read-only recovery ends with it.
  const draw: ReportDraw = { paint, line, show: SHOW, more: (n) => more(n, o) };
  L.push(...(PRESETS.get(r.preset)?.recoverLines?.(r, draw) ?? []));
  if (r.sources.gates) return L.join('\n');

  L.push('', paint('title', '2 Where it stopped'));
  const st = r.stop;
  L.push(
    line(
      `  ${st.phase === null ? 'every phase done' : `Phase ${st.phase} ${sanitizeLine(st.phaseName ?? '')}`}${st.batch !== null ? ` · Batch ${st.batch}` : ''}` +
        ` · last done: ${st.lastDone ? `${sanitizeLine(st.lastDone.unit)} ${sanitizeLine(st.lastDone.step)} (${sanitizeLine(st.lastDone.path)})` : 'nothing'}`,
    ),
  );
  // How the batch was found, the checkpoint's other claim, and the regressions apart.
  const FROM = { runs: 'from the runs', checkpoint: 'the checkpoint agrees with the disk', disk: 'from the disk' } as const;
  L.push(line(paint('muted', `  (${FROM[st.from]})`)));
  if (st.disagreement) L.push(line(warn(`  ${st.disagreement}`)));
  if (st.regressions.length) for (const l of wrapLine(`  ${regressionsText(st.regressions, st.regressionsEarlier, (t) => t)}`, w)) L.push(warn(l));
  if (st.inProgress.length)
    L.push(line(`  in progress: ${st.inProgress.slice(0, 8).map((c) => `${sanitizeLine(c.unit)} ${sanitizeLine(c.step)} (${c.status.replace('_', ' ')})`).join(', ')}${st.inProgress.length > 8 ? ', …' : ''}`));

  L.push('', paint('title', `3 Half-products (${r.halfProducts.length})`) + (r.suspects.length ? paint('muted', ` · ${r.suspects.length} suspicious`) : ''));
  for (const p of [...r.halfProducts, ...r.suspects].slice(0, SHOW))
    L.push(line(`  ${paint(p.verdict === 'maybe_complete' ? 'warn' : 'fail', pad(p.verdict, 24))} ${sanitizeLine(p.path)} — ${sanitizeLine(p.reason)}`));
  L.push(...more(r.halfProducts.length + r.suspects.length - SHOW, o));

  L.push('', paint('title', `4 Long memory (${r.memory.issues.length} issue${r.memory.issues.length === 1 ? '' : 's'})`));
  for (const i of r.memory.issues.slice(0, SHOW)) L.push(line(`  ${paint(i.kind === 'no_entry' ? 'warn' : 'fail', pad(i.kind, 10))} ${sanitizeLine(i.detail)}`));
  L.push(...more(r.memory.issues.length - SHOW, o));
  for (const b of r.memory.rebuild.slice(0, SHOW)) L.push(line(paint('muted', `  → ${sanitizeLine(b.reason)}`)));
  L.push(...more(r.memory.rebuild.length - SHOW, o));

  L.push('', paint('title', r.dryRun ? '5 Would rebuild' : '5 Rebuilt'));
  if (r.rebuilt.length === 0) L.push(paint('muted', '  nothing: every source agrees with the disk'));
  for (const a of r.rebuilt) {
    const mark = a.blocked ? bad('[cannot]') : a.manual ? warn('[todo]') : a.done ? ok('[done]') : warn('[would]');
    L.push(line(`  ${mark} ${sanitizeLine(a.target)}: ${sanitizeLine(a.reason)}${a.backup ? paint('muted', `; previous version in ${sanitizeLine(a.backup)}`) : ''}`));
    // Its own line: what to do must not be cut off by the width of the reason.
    if (a.blocked) for (const l of wrap(sanitizeLine(a.blocked), w - 4)) L.push(line(bad(`    ${l}`)));
  }

  L.push('', paint('title', `6 Continue with (${r.planTotal} steps)`));
  for (const n of r.plan.slice(0, 8)) L.push(`  ${nextLine(n, o, w - 2)}`);
  if (r.planTotal > 8) L.push(paint('muted', `  … ${r.planTotal - 8} more (checkroom plan)`));
  if (r.planTotal === 0) L.push(paint('muted', '  nothing to do'));
  return L.join('\n');
}
