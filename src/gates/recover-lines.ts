import { sanitizeLine } from '../text/sanitize.js';
import type { GateSummary } from './summary.js';
import type { ReportDraw } from '../pipeline/presets/types.js';

// The recover report's section for gate-file workflows (docs/recovery.md): every workflow,
// every step in the workflow's own words with what it waits on, its failed validations,
// missing artifacts, interrupted steps and memory files. Nothing is rebuilt for such a
// workflow, so this section replaces the book's "where it stopped" and rebuilds.

/** A gate step's status in the workflow's words: its gate passed, failed, or the step is half-done. */
const GATE_STEP_WORD: Record<string, string> = { done: 'gate passed', skipped: 'skipped', failed: 'gate failed', partial: 'half-done', not_started: 'not started' };

const workflowLines = (g: GateSummary, d: ReportDraw): string[] => {
  const { paint, line } = d;
  const L: string[] = [];
  L.push(line(`  ${sanitizeLine(g.id)} ${sanitizeLine(g.name)}: last passed step ${g.lastPassed ?? 'none'} · next ${g.next ? `${g.next.number} ${sanitizeLine(g.next.agent)} (${sanitizeLine(g.next.name)})` : 'none'}`));
  for (const s of g.steps) {
    const needs = s.dependencies.length ? ` · needs ${s.dependencies.map(sanitizeLine).join(', ')}` : '';
    const word = GATE_STEP_WORD[s.status] ?? sanitizeLine(s.status);
    L.push(line(`    step ${sanitizeLine(s.number)} ${sanitizeLine(s.agent)} · ${sanitizeLine(s.name)} · ${s.status === 'failed' ? paint('fail', word) : s.status === 'partial' ? paint('warn', word) : word}${needs}`));
  }
  for (const f of g.failedValidations) L.push(line(paint('fail', `    failed validation: step ${f.step} (${f.class}): ${sanitizeLine(f.errors[0] ?? '')}`)));
  for (const a of g.missingArtifacts) L.push(line(paint('warn', `    missing artifact: ${sanitizeLine(a.name)} (${sanitizeLine(a.path)})`)));
  if (g.interrupted.length) L.push(line(paint('warn', `    interrupted steps: ${g.interrupted.map(sanitizeLine).join(', ')}`)));
  L.push(line(`    memory: ${g.memory.map((m) => `${sanitizeLine(m.file.split('/').pop() ?? '')} ${m.present ? paint('ok', 'present') : paint('warn', 'missing')}`).join(', ')}`));
  for (const x of g.warnings.slice(0, d.show)) L.push(line(paint('muted', `    ! ${sanitizeLine(x.source)}: ${sanitizeLine(x.message)}`)));
  L.push(...d.more(g.warnings.length - d.show));
  return L;
};

/** The section: a title, then each workflow. */
export const gateRecoverLines = (gates: readonly GateSummary[] | null, d: ReportDraw): string[] =>
  gates ? ['', d.paint('title', '2 Workflows (gate files)'), ...gates.flatMap((g) => workflowLines(g, d))] : [];
