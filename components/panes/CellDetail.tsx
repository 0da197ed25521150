import { Box } from 'ink';
import { CLAIM_WORD, GLYPH_WORD, glyphsFor, STATUS_WORD } from '../../src/text/glyphs.js';
import { CLAIM_GLYPH } from '../../src/checkpoint/glyphs.js';
import { fit, fitPath, fitWords } from '../../src/text/layout.js';
import { lookOf, LOOK_TOKEN } from '../../src/text/cell-look.js';
import { PRESETS } from '../../src/pipeline/presets/index.js';
import { liveWriters, writerOf, writingWhy } from '../../src/ui/agents/live-writers.js';
import { heldWhy } from '../../src/ui/agents/held.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { cellSpendLines } from '../../src/ui/views/spend.js';
import { operatorOf } from '../../src/ui/store/operator.js';
import { jobRows } from '../../src/operator/job-words.js';
import { Line, T } from '../Styled.js';
import { journalledResourcesWords } from '../../src/run/policy/memory-ladder.js';

// One cell, everything the operator needs to decide: where the file is, how big, whether
// the marker is there, what checkpoint.md claims against what the disk shows, the verdict
// and why, what it waits on, and the file's last lines (read when the detail opened).
// A preset whose proof is not a marker (gates: a gate file, and a plan instead of
// checkpoint.md) gives its own size, proof and claims lines (Preset.cellDetail).

const NO_JOBS: readonly never[] = [];

const DISK_WORD = { done: 'done (marker found)', partial: 'file without its marker', missing: 'no file', unreadable: 'cannot be read' } as const;

export function CellDetail({ height, width }: { height: number; width: number }) {
  const detail = useAppStore((s) => s.detail);
  const ws = useAppStore((s) => s.ws);
  const ascii = useAppStore((s) => s.ascii);
  // What this cell's agent attempts cost, when an adapter reported it.
  const spent = useAppStore((s) => (detail ? (cellSpendLines(s.agents.snap?.ledger.costs, `${detail.unit}/${detail.step}`)[0]?.trim() ?? '') : ''));
  const agents = useAppStore((s) => s.agents);
  // Its cluster jobs (node, queue wait, run time, Slurm's accounting): the operator model's.
  const jobs = useAppStore((s) => (detail ? (operatorOf(s).cells.get(`${detail.unit}/${detail.step}`)?.jobs ?? NO_JOBS) : NO_JOBS));
  const held = useAppStore((s) => s.held);
  // A redo's fork (docs/redo.md): the operator model's, as every surface reads it.
  const fork = useAppStore((s) => (detail ? (operatorOf(s).cells.get(`${detail.unit}/${detail.step}`)?.fork ?? null) : null));
  // What the running attempt was given (memory at its ladder step), from its journalled launch.
  const given = detail ? journalledResourcesWords(agents.snap?.ledger.liveRuns.find((r) => r.unit === detail.unit && r.step === detail.step)?.resources) : '';
  if (!detail) return null;
  const cell = ws.cells.find((c) => c.unit === detail.unit && c.step === detail.step);
  const step = ws.pipeline.steps.find((s) => s.id === detail.step);
  if (!cell) return <Line tok="muted">this cell is gone after the last scan (esc goes back)</Line>;
  const g = glyphsFor(ascii);
  const writer = writerOf(liveWriters({ ws, agents }), cell);
  const status = lookOf({ status: writer && writer.unit === cell.unit && writer.step === cell.step ? 'running' : cell.status, blockedBy: cell.blockedBy });
  // What blocks it, each cell with its state: "ch06 draft (needs human)".
  const blockers = cell.blockedBy.map((k) => {
    const b = ws.cells.find((x) => `${x.unit}/${x.step}` === k);
    return b ? `${b.unit} ${b.step} (${STATUS_WORD[b.status]})` : k;
  });
  const claim = cell.checkpoint === null ? null : `${ascii ? '' : `${CLAIM_GLYPH[cell.checkpoint]} `}${CLAIM_WORD[cell.checkpoint]}`;
  const own = PRESETS.get(ws.preset ?? '')?.cellDetail?.(cell, claim) ?? null;
  const unreadable = cell.disk === 'unreadable';
  const facts: [string, string][] = [
    ['path', cell.path],
    ['size', own ? own.size : unreadable ? 'unknown: checkroom cannot read it' : cell.exists ? `${cell.bytes} bytes · ${cell.charsAtLeast ? 'at least ' : ''}${cell.chars} characters` : 'no file on disk'],
    own
      ? own.proof
      : ['marker', unreadable && step?.marker ? `unknown (cannot read the file): <!-- ${step.marker} -->` : step?.marker ? `${cell.marker ? 'found' : 'not found'}: <!-- ${step.marker} -->` : 'this step has no marker (an entry in a shared file)'],
    ['claims', own ? own.claims : `checkpoint.md: ${claim ?? 'no row in checkpoint.md'}   disk: ${DISK_WORD[cell.disk]}`],
    ['verdict', writer ? writingWhy(writer, cell) : held.byPath.has(cell.path) ? heldWhy(held.byPath.get(cell.path)!) : cell.triage ? `${cell.triage.verdict}: ${cell.triage.reason}` : cell.error ? `cannot read it: ${cell.error}` : '—'],
    ['blocked by', blockers.length ? `${blockers.join(', ')}: it can start once ${blockers.length === 1 ? 'that is' : 'those are'} done` : 'nothing'],
    ...(spent ? [['agent', spent] as [string, string]] : []),
    ...(fork ? [['fork', `${fork}: its next run (a redo from here asked for it)`] as [string, string]] : []),
    ...(given ? [['resources', `${given} (this attempt, as journalled)`] as [string, string]] : []),
    ...jobRows(jobs).slice(0, Math.max(0, height - 10)),
  ];
  const tailRows = Math.max(0, height - facts.length - 2);
  const lines = detail.tail?.lines ?? [];
  const shown = lines.slice(Math.max(0, lines.length - tailRows));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok="title">{`${cell.unit} · ${step?.label ?? cell.step}`}</T>
        {cell.batch !== null ? ` · batch ${cell.batch}` : ''} · <T tok={LOOK_TOKEN[status]}>{`${g[status].trim()} ${GLYPH_WORD[status]}`}</T>
        <T tok="muted"> (esc back, arrows move)</T>
      </Line>
      {facts.map(([k, v]) => (
        <Line key={k}>
          <T tok="muted">{k.padEnd(11)}</T>
          {k === 'path' ? fitPath(v, width - 11) : fitWords(v, width - 11)}
        </Line>
      ))}
      <Line tok="muted">{detail.loading ? 'reading the tail…' : detail.note ? detail.note : `── last ${shown.length} line${shown.length === 1 ? '' : 's'}${detail.tail?.cut ? ' (of the last 4 KB)' : ''} ──`}</Line>
      {shown.map((l, i) => (
        <Line key={i}>{l === '' ? ' ' : fit(l, width)}</Line>
      ))}
    </Box>
  );
}
