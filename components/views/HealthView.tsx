import { Box } from 'ink';
import stringWidth from 'string-width';
import { useShallow } from 'zustand/react/shallow';
import { columnWidth, fit, fitWords, pad, stateFirstColumns } from '../../src/text/layout.js';
import { cellStateWords, classCounts, runStateWords, type HealthItem } from '../../src/ui/agents/agents.js';
import { cellQueueMark } from '../../src/operator/queues.js';
import { healthList } from '../../src/ui/views/health-filter.js';
import { operatorOf } from '../../src/ui/store/operator.js';
import { jobRows } from '../../src/operator/job-words.js';
import { autopilotWords, breakerWords, failureWords, quotaLine, slotWords } from '../../src/operator/words.js';
import { resetClock } from '../../src/run/quota/gate.js';
import type { OperatorModel } from '../../src/operator/types.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { cellSpendLines, spendWords, usd } from '../../src/ui/views/spend.js';
import type { CostLedger } from '../../src/run/journal/costs.js';
import { useWindow } from '../../hooks/use-window.js';
import { Line, T } from '../Styled.js';
import { rowMark } from '../RowMark.js';
import { healthKey } from '../../src/ui/keys/item-keys.js';

// Health (docs/domain.md, Failure classes and their caps; Handling agent faults): per agent its breaker (closed / open with countdown /
// half-open / held), slots in use, trips and consecutive failures against the threshold; per
// cell with attempts its counts by class, "attempt N of M", fingerprint repeats and state;
// then the global death-spiral counters and autopilot. Rows come from the operator model by
// urgency (escalated, open breakers, failing, running, idle), every countdown from
// its deadline and the model's one clock. Under the list: the selected row in full.

const BREAKER_TOKEN: Record<string, Token> = { closed: 'ok', open: 'fail', half_open: 'warn', held: 'warn' };
const CELL_TOKEN: Record<string, Token> = { idle: 'muted', running: 'accent', pending: 'muted', retrying: 'warn', waiting: 'warn', held: 'warn', escalated: 'fail', done: 'ok' };

function detailOf(it: HealthItem | undefined, m: OperatorModel, costs?: CostLedger): string[] {
  if (!it) return [];
  if (it.kind === 'agent') {
    const b = it.breaker;
    if (!b.seen) return [`${it.agent}: no launch recorded in the journal yet · slots ${slotWords(b)}`];
    return [
      `${it.agent}: breaker ${breakerWords(b, m.at)} · slots ${slotWords(b)} · ${failureWords(b.consecutiveFailures, b.threshold)} · ${b.trips} trip${b.trips === 1 ? '' : 's'}${spendWords(costs?.agents[it.agent]) ? ` · spent ${spendWords(costs?.agents[it.agent])}` : ''}`,
      ...(b.openedBy.length ? b.openedBy.slice(-3).map((x) => `  opened by: ${x}`) : ['  no failures since the last success']),
    ];
  }
  const c = it.cell;
  const l = c.ledger;
  const queueMark = cellQueueMark(m.queues, c.unit, c.step);
  const esc = c.escalation ? ` ${c.escalation.class}` : '';
  return [
    ...cellSpendLines(costs, c.key),
    `${c.unit} ${c.step} (${c.agent ?? '-'}): ${l ? runStateWords(l.state) : c.run}${esc}${c.reason ? ` — ${c.reason}` : ''}`,
    `  attempts ${c.attempts}${l && classCounts(l) ? ` · ${classCounts(l)}` : ''}${c.nextAttempt ? ` · next: ${c.nextAttempt}` : ''} · same error ×${l?.fingerprintRepeats ?? 0}`,
    // The cluster job under it: the node, the queue wait apart from the run time (docs/scale-out.md).
    ...jobRows(c.jobs).slice(0, 1).map(([k, v]) => `  ${k}: ${v}`),
    ...(l?.lastError ? [`  last error: ${l.lastError}`] : []),
    ...(c.hold ? [`  held: ${c.hold}; autopilot leaves it alone until you launch it`] : []),
    // A named action's queue or skip, or a redo's queue (docs/redrive.md): the operator model's words, as Plan's.
    ...(queueMark && !c.hold ? [`  ${queueMark}`] : []),
  ];
}

/** A row's name and state columns; their widths come from every row. */
const nameOf = (it: HealthItem): string => (it.kind === 'agent' ? `agent ${it.agent}` : `${it.cell.unit} ${it.cell.step}`);
const stateOf = (it: HealthItem, m: OperatorModel): string => (it.kind === 'agent' ? breakerWords(it.breaker, m.at) : cellStateWords(it.cell, m));

/** An account waiting for its quota's reset: one line each, its one countdown (docs/quota.md). */
const quotaLines = (m: OperatorModel): string[] => m.quota.slice(0, 2).map((q) => quotaLine(q, m.at, resetClock(q.deadline, m.at)));

/** Drain and pauses (docs/drain.md), agents and executors included: one line, the operator model's words. */
const pauseNote = (m: OperatorModel): string[] => (m.pause.words ? [`${m.pause.words}${m.pause.paused.length ? ' · p resumes the selected agent or cell' : ''}`] : []);

const quotaNotes = (lines: string[], width: number) =>
  lines.map((q) => (
    <Line key={q} tok="warn">
      {fit(q, width)}
    </Line>
  ));

export function HealthView({ height, width }: { height: number; width: number }) {
  const { agents, cursor, filter, m, marks } = useAppStore(useShallow((s) => ({ agents: s.agents, cursor: s.cursors.health, filter: s.filter, m: operatorOf(s), marks: s.marks.health })));
  const snap = agents.snap;
  const items = healthList(m, filter);
  const nAgents = items.filter((i) => i.kind === 'agent').length;
  const sel = items[cursor];
  // Rows: the heading, the list (its last row is a note while no cell has attempts), then
  // the selected row in full, cut so that at least 3 list rows remain. The window is the
  // list's rows minus the note: counting the note as a list row pushed the window's first
  // row out of sight at 60×15 (the box shrank its rows onto each other).
  const detail = detailOf(sel, m, snap?.ledger.costs).slice(0, Math.max(0, Math.min(4, height - 4)));
  // Journal lines that could not be read are said, not skipped without a word.
  const jw = snap?.warnings ?? [];
  const journalNote = jw.length ? `${jw[0]}${jw.length > 1 ? ` (+${jw.length - 1} more: checkroom recover)` : ''}` : null;
  const quota = [...pauseNote(m), ...quotaLines(m)];
  const listH = Math.max(1, height - 1 - detail.length - (journalNote ? 1 : 0) - quota.length);
  // Under a filter the note says what matched nothing instead (`/` filters Health).
  const note = items.length === nAgents;
  const win = useWindow(cursor, Math.max(1, listH - (note ? 1 : 0)), items.length);
  if (!agents.enabled || !snap) {
    return (
      <Box flexDirection="column" height={height} overflow="hidden">
        <Line tok="title">Health</Line>
        <Line tok="muted">{fit(`no agent supervisor: ${agents.why ?? 'not available'}`, width)}</Line>
      </Box>
    );
  }
  const spent = spendWords(snap.ledger.costs?.session);
  const inWs = snap.limits.maxLaunchesWorkspace !== undefined ? ` (${snap.ledger.launchesInWorkspace} of ${snap.limits.maxLaunchesWorkspace} in the workspace)` : '';
  const global = `launches ${snap.launchesThisSession} of ${snap.limits.maxLaunches}${inWs} · consecutive failures ${snap.limits.consecutiveFailures} of ${snap.limits.maxConsecutiveFailures}${spent ? ` · spent ${spent}` : ''} · autopilot ${autopilotWords(m.autopilot)}`;
  const counter = items.length ? ` ${win.start + 1}-${win.end}/${items.length}` : '';
  // Columns: mark (2), name, state, then the counts; one space after each column.
  const cols = stateFirstColumns(width, columnWidth(items.map(nameOf), 10, 24), columnWidth(items.map((it) => stateOf(it, m)), 6, 22));
  const [nameW, stateW, restW] = [cols.name, cols.state, cols.rest];
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok={m.autopilot.state === 'paused' || snap.limits.consecutiveFailures > 0 ? 'warn' : 'muted'}>{fit(global, Math.max(1, width - stringWidth(counter)))}</T>
        <T tok="muted">{counter}</T>
      </Line>
      {journalNote ? <Line tok="warn">{fit(journalNote, width)}</Line> : null}
      {quotaNotes(quota, width)}
      <Box flexDirection="column" height={listH} overflow="hidden">
        {items.slice(win.start, win.end).map((it, i) => {
          const idx = win.start + i;
          const here = idx === cursor;
          const mark = rowMark(here, marks.includes(healthKey(it)));
          const name = `${pad(fit(nameOf(it), nameW), nameW)} `;
          const state = `${pad(fit(stateOf(it, m), stateW), stateW)} `;
          if (it.kind === 'agent') {
            const b = it.breaker;
            const paused = m.pause.paused.some((r) => r.scope === 'agent' && r.target === it.agent) ? 'PAUSED · ' : '';
            return (
              <Line key={`a${it.agent}`} selected={here} width={width}>
                {mark}
                {name}
                <T tok={BREAKER_TOKEN[b.state]}>{state}</T>
                {/* Slots in use (when any) and spend before the failures: the row is cut at its end on 80
                    columns, and the failure count in words is the longer part, repeated in full in the
                    detail below, with the slots always. */}
                {fitWords(`${paused}${b.slots.used ? `slots ${b.slots.used}/${b.slots.limit ?? '-'} · ` : ''}trips ${b.trips}${spendWords(snap.ledger.costs?.agents[it.agent]) ? ` · ${spendWords(snap.ledger.costs?.agents[it.agent])}` : ''} · ${failureWords(b.consecutiveFailures, b.seen ? b.threshold : snap.limits.breakerThreshold)}`, restW)}
              </Line>
            );
          }
          const c = it.cell;
          const counts = c.ledger ? classCounts(c.ledger) : '';
          const repeats = c.ledger?.fingerprintRepeats ?? 0;
          // The class it was escalated with, the one Plan and the status line say, unless its count already names it.
          const esc = c.escalation && !c.ledger?.counts[c.escalation.class] ? ` · escalated as ${c.escalation.class}` : '';
          return (
            <Line key={`c${c.key}`} selected={here} width={width}>
              {mark}
              {name}
              <T tok={CELL_TOKEN[c.run]}>{state}</T>
              {fitWords(`${c.attempts} att${esc}${c.nextAttempt ? ` · next ${c.nextAttempt}` : ''}${counts ? ` · ${counts}` : ''}${repeats > 1 ? ` · same error ×${repeats}` : ''}${spendWords(snap.ledger.costs?.cells[c.key]) ? ` · ${usd(snap.ledger.costs!.cells[c.key]!.costUsd)}` : ''}`, restW)}
            </Line>
          );
        })}
        {note ? <Line tok="muted">{fit(filter ? (items.length ? '  no cell matches the filter (esc clears it)' : '  nothing matches the filter (esc clears it)') : '  no cell has attempts in the journal yet', width)}</Line> : null}
      </Box>
      {detail.map((l, i) => (
        <Line key={`d${i}`} tok={i === 0 ? undefined : 'muted'}>
          {fitWords(l, width)}
        </Line>
      ))}
    </Box>
  );
}
