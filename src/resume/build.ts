import { planOf } from '../operator/plan.js';
import { posix } from 'node:path';
import type { Lang, WorkspaceState } from '../types.js';
import type { DecisionEvent } from '../run/journal/journal.js';
import type { MemoryCheck } from '../memory/check.js';
import { phaseName, stepHeading } from '../checkpoint/i18n.js';
import { sanitizeLine } from '../text/sanitize.js';
import { formatMinute } from '../text/local-time.js';
import type { Why } from '../reasons/why.js';
import { say } from '../reasons/say.js';
import { resumeFacts, statusGlyph } from './facts.js';
import { CLAIM_GLYPH } from '../checkpoint/glyphs.js';
import { DIR_LABELS, RESUME_VOCAB, type ResumeVocab } from './vocab.js';
import { presetOf } from '../pipeline/presets/index.js';

// RESUME.md, "a letter to the next session" (docs/domain.md, RESUME.md; the source document's
// template and headings verbatim for Chinese). Pure: the state and what the journal and the
// memory check found go in, the letter comes out. Every fact line is one `- label: value` or
// one numbered task, so parseResume can read it back.

export interface ResumeOptions {
  now: Date;
  /** Default: the language of the workspace's checkpoint.md. */
  lang?: Lang;
  /** Decision events of .checkroom/journal.jsonl (readJournal), oldest first. */
  decisions?: readonly DecisionEvent[];
  memory?: MemoryCheck | null;
  /** Open or held breakers from the journal (replayJournal). */
  breakers?: readonly { agent: string; detail: string }[];
  checkpointFile?: string;
}

const PER_KIND = 5;
const NEXT_STEPS = 8;
const DECISIONS = 15;

/** `2026-11-30 05:20`, local time: the format checkpoint.md uses for its last update. */
export const formatResumeTime = (d: Date): string => formatMinute(d);

const list = (xs: readonly string[], v: ResumeVocab): string => (xs.length ? xs.map(sanitizeLine).join(', ') : v.none);

/** At most PER_KIND lines of a kind, then one line saying how many were left out. */
function capped(lines: string[], v: ResumeVocab): string[] {
  return lines.length <= PER_KIND ? lines : [...lines.slice(0, PER_KIND), `- ${v.more(lines.length - PER_KIND)}`];
}

function issues(state: WorkspaceState, lang: Lang, v: ResumeVocab, o: ResumeOptions): string[] {
  const out: string[] = [];
  const why = (x: { why?: Why; reason: string }): string => sanitizeLine(x.why ? say(localized(x.why, state, lang), lang) : x.reason);
  const cellOf = new Map(state.cells.map((c) => [`${c.unit}/${c.step}`, c]));
  const failures = state.next.filter((n) => n.priority === 1 && n.unit && n.step && (n.action === 'retry' || n.action === 'human_review'));
  out.push(
    ...capped(
      failures.map((n) => {
        const c = cellOf.get(`${n.unit}/${n.step}`);
        const st = c?.status ?? 'failed';
        return `- ${sanitizeLine(`${n.unit} ${n.step}`)} ${statusGlyph(st)} ${v.statusWord[st]} — ${v.impact}: ${n.blocks ? v.impactBlocks(n.unit!, n.blocks) : v.impactNothing}`;
      }),
      v,
    ),
  );
  out.push(...capped(state.partials.map((p) => `- ${sanitizeLine(p.path)}: ${v.partial(v.verdict[p.verdict], why(p))} — ${v.impact}: ${v.impactPartial(p.unit, p.step)}`), v));
  out.push(...capped(state.suspects.map((p) => `- ${sanitizeLine(p.path)}: ${v.suspect(why(p))} — ${v.impact}: ${v.impactSuspect}`), v));
  if (state.discrepancies.length) {
    const first = state.discrepancies
      .slice(0, 3)
      .map((d) => `${d.unit} ${d.step}: ${CLAIM_GLYPH[d.checkpoint]} → ${v.statusWord[d.disk]}`);
    const more = state.discrepancies.length > 3 ? ', …' : '';
    out.push(`- ${v.differs(o.checkpointFile ?? 'checkpoint.md', state.discrepancies.length, sanitizeLine(first.join(', ') + more))} — ${v.impact}: ${v.impactStale}`);
  }
  if (o.memory) out.push(...capped(o.memory.issues.map((i) => `- ${sanitizeLine(say(i.why, lang))} — ${v.impact}: ${v.impactMemory}`), v));
  else {
    const lost = state.next.filter((n) => n.action === 'rebuild_memory');
    out.push(...capped(lost.map((n) => `- ${why(n)} — ${v.impact}: ${v.impactMemory}`), v));
  }
  const todos = state.todos;
  if (todos?.disagreements.length) {
    const first = todos.disagreements.slice(0, 3).map((d) => `${d.todoId}: ${d.todo} → ${v.statusWord[d.disk as keyof ResumeVocab['statusWord']] ?? d.disk}`);
    const list = sanitizeLine(first.join(', ') + (todos.disagreements.length > 3 ? ', …' : ''));
    out.push(`- ${v.differs('todos', todos.disagreements.length, list)} — ${v.impact}: ${v.impactTodos}`);
  }
  for (const b of o.breakers ?? []) out.push(`- ${v.breaker(sanitizeLine(b.agent), sanitizeLine(b.detail))} — ${v.impact}: ${v.impactBreaker}`);
  return out.length ? out : [`- ${v.noIssues}`];
}

/** A finding with the pipeline's own words (phase names) in the letter's language. */
const localized = (w: Why, state: WorkspaceState, lang: Lang): Why => {
  if (w.k !== 'phase_missing') return w;
  const phase = state.pipeline.phases.find((p) => p.id === w.phase);
  return phase ? { ...w, name: phaseName(phase, lang) } : w;
};

function decisions(v: ResumeVocab, o: ResumeOptions): string[] {
  // "The exact command was shown" is consent bookkeeping, not a decision about the work.
  const ds = (o.decisions ?? []).filter((d) => d.kind !== 'command_shown');
  if (ds.length === 0) return [`- ${v.noDecisions}`];
  const lines = ds.slice(-DECISIONS).map((d) => {
    const target = [d.unit && d.step ? `${d.unit} ${d.step}` : d.unit, d.path].filter(Boolean).join(' ');
    const result = [d.note ? v.decisionNote(d.note) : null, d.backupPath ? `→ ${d.backupPath}` : null].filter(Boolean).join('; ');
    return `- ${formatResumeTime(new Date(d.at))} ${v.decisionKind[d.kind] ?? d.kind}${target ? ` ${target}` : ''}: ${result || '—'}`;
  });
  return ds.length > DECISIONS ? [`- ${v.more(ds.length - DECISIONS)}`, ...lines].map(sanitizeLine) : lines.map(sanitizeLine);
}

function fileLocations(state: WorkspaceState, lang: Lang, v: ResumeVocab, o: ResumeOptions): string[] {
  const root = state.root.replace(/\/+$/, '');
  const letter = presetOf(state.preset).letter;
  if (letter) return letter.files(root, state.units).map(sanitizeLine);
  const labels = DIR_LABELS[lang];
  const out = [`- ${v.checkpointLabel}: ${root}/${o.checkpointFile ?? 'checkpoint.md'}`];
  const seen = new Set<string>();
  const add = (key: string, label: string, path: string): void => {
    if (seen.has(key)) return;
    seen.add(key);
    out.push(`- ${label}: ${root}/${path}`);
  };
  for (const p of state.pipeline.phases) {
    for (const a of p.artifacts) {
      const dir = posix.dirname(a);
      if (dir === '.') add(a, labels[a] ?? a, a);
      else add(dir, v.sharedLabel, `${dir}/`);
    }
  }
  for (const s of state.pipeline.steps) {
    const dir = posix.dirname(s.path);
    if (dir === '.') continue;
    add(dir, labels[dir] ?? stepHeading(s, s.id, lang), `${dir}/`);
  }
  return out.map(sanitizeLine);
}

export function buildResume(state: WorkspaceState, o: ResumeOptions): string {
  const lang = o.lang ?? state.checkpoint.lang;
  // A preset's own words (gates: workflows, steps, the plan); its states are English.
  const words = presetOf(state.preset).letter?.words;
  const v = words && lang === 'en' ? { ...RESUME_VOCAB.en, ...words } : RESUME_VOCAB[lang];
  const f = resumeFacts(state);
  const name = sanitizeLine(state.name);
  const phase = state.pipeline.phases.find((p) => p.id === f.phase);
  const sourceMap = state.pipeline.phases.flatMap((p) => p.artifacts).find((a) => /source-map/.test(a));
  const L: string[] = [];
  L.push(`# ${name} — ${v.title}`, '', `${v.generatedAt}: ${formatResumeTime(o.now)}`, `${v.generatedBy}: ${v.generator}`, '', '---', '');
  L.push(`## ${v.overview}`);
  L.push(`- ${v.project}: ${name}`);
  L.push(`- ${v.source}: ${sourceMap ? v.sourceValue(sourceMap) : '—'}`);
  L.push(`- ${v.unitCount}: ${state.units.length}`);
  L.push(`- ${v.workdir}: ${sanitizeLine(state.root)}`, '');
  L.push(`## ${v.progress}`);
  L.push(`- ${v.phase}: ${phase ? `Phase ${phase.id} ${phaseName(phase, lang)}` : v.allPhasesDone}`);
  L.push(`- ${v.batch}: ${f.batch !== null ? `Batch ${f.batch}` : '—'}`);
  L.push(`- ${v.done}: ${list(f.done, v)}`);
  L.push(`- ${v.inProgress}: ${list(f.inProgress, v)}`);
  L.push(`- ${v.notStarted}: ${list(f.notStarted, v)}`);
  L.push(...(presetOf(state.preset).letter?.progress?.(state) ?? []).map(sanitizeLine), '');
  L.push(`## ${v.unfinished}`);
  f.unfinished.forEach((t, i) =>
    L.push(`${i + 1}. ${sanitizeLine(`${t.unit} ${t.step}`)} — ${v.status}: ${statusGlyph(t.status)} ${t.status} — ${v.priority}: ${v.prio[t.priority]}`),
  );
  if (f.unfinished.length === 0) L.push(`- ${v.none}`);
  if (f.unfinishedTotal > f.unfinished.length) L.push(`- ${v.more(f.unfinishedTotal - f.unfinished.length)}`);
  L.push('');
  L.push(`## ${v.issues}`, ...issues(state, lang, v, o), '');
  L.push(`## ${v.decisions}`, ...decisions(v, o), '');
  L.push(`## ${v.next}`, `1. ${v.readCheckpoint}`, `2. ${v.detectPartials}`);
  // One entry per cell, as Plan and `checkroom plan` list them (the operator model's plan).
  const plan = planOf(state.next);
  plan.slice(0, NEXT_STEPS).forEach((n, i) => {
    const where = n.unit ? `${n.unit} ${n.step}` : v.workspace;
    const why = n.priority < 3 || !n.unit ? ` — ${n.why ? say(localized(n.why, state, lang), lang) : n.reason}` : '';
    L.push(sanitizeLine(`${i + 3}. ${where}: ${v.action[n.action]}${why}`));
  });
  if (plan.length > NEXT_STEPS) L.push(`- ${v.more(plan.length - NEXT_STEPS)}`);
  L.push('');
  L.push(`## ${v.files}`, ...fileLocations(state, lang, v, o), '');
  return L.join('\n');
}
