import type { ReactNode } from 'react';
import { Box } from 'ink';
import stringWidth from 'string-width';
import { cellPauseMark } from '../../src/operator/pause.js';
import { cellQueueMark, redriveTally } from '../../src/operator/queues.js';
import { useShallow } from 'zustand/react/shallow';
import { columnWidth, fit, fitWords, noUnitsWhy, pad, whereOf } from '../../src/text/layout.js';
import { actionWord } from '../../src/plan/action-words.js';
import { planItems, type PlanItem } from '../../src/ui/store/select.js';
import { entryLiveState, flightState } from '../../src/ui/agents/agents.js';
import { operatorOf } from '../../src/ui/store/operator.js';
import type { OperatorModel, OperatorStep } from '../../src/operator/types.js';
import { wrapLine } from '../../src/text/wrap.js';
import { liveWriters, writerOf, writingWhy } from '../../src/ui/agents/live-writers.js';
import { glyphsFor } from '../../src/text/glyphs.js';
import { cellKey } from '../../src/types.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useWindow } from '../../hooks/use-window.js';
import { LogPane } from '../panes/LogPane.js';
import { Line, T } from '../Styled.js';
import { rowMark } from '../RowMark.js';
import { planKey } from '../../src/ui/keys/item-keys.js';

// The next-step plan: cells in flight (running, or waiting for their next attempt), the
// steps queued for relaunch by redo, then failures that block, half-products and new work.
// Under the list: the selected entry's full reason, wrapped; under that, the selected run's
// output (or, with o, a tall output pane; L opens the full log pager).

const P_TOKEN: Record<1 | 2 | 3, Token> = { 1: 'fail', 2: 'warn', 3: 'accent' };

/** The place and action columns of one entry; their widths come from every entry. */
const placeOf = (it: PlanItem): string => (it.kind === 'flight' ? `${it.flight.unit} ${it.flight.step}` : it.kind === 'queued' ? `${it.redo.unit} ${it.redo.step}` : whereOf(it.step));
const actionOf = (it: PlanItem): string => (it.kind === 'flight' ? (it.flight.state === 'waiting' ? 'retrying' : it.flight.state) : it.kind === 'queued' ? 'queued redo' : actionWord(it.step.action));

const keyOf = (it: PlanItem | undefined): string | null =>
  !it ? null : it.kind === 'flight' ? it.flight.key : it.kind === 'queued' ? cellKey(it.redo.unit, it.redo.step) : it.step.unit && it.step.step ? cellKey(it.step.unit, it.step.step) : null;

/** The first `room` rows; when some are left out, the last one shown ends with "…". */
const cutRows = (rows: string[], room: number, width: number): string[] =>
  rows.length <= room || room === 0 ? rows.slice(0, room) : [...rows.slice(0, room - 1), stringWidth(rows[room - 1]) < width - 1 ? `${rows[room - 1]} …` : fitWords(rows[room - 1], width - 2)];

/** A waiting flight's state already is its reason: said once (a breaker's wait is its live countdown, not the words baked when it began). */
const withReason = (state: string, reason: string | null | undefined): string => (reason && reason !== state ? `${state} — ${reason}` : state);

/** A plan entry's whole reason, with what other entries said of the same cell (one row per cell). */
const withAlso = (n: OperatorStep): string => [n.reason, ...(n.also ?? []).map((a) => `also ${actionWord(a.action)}: ${a.reason}`)].join('; ');

/** What a plan row needs from its view: glyphs, the agents' state, the column layout. */
interface RowContext {
  g: ReturnType<typeof glyphsFor>;
  m: OperatorModel;
  cols: (it: PlanItem, tag: string, tok: Token | undefined) => ReactNode;
  reasonW: number;
  /** The marked rows' keys (marks.ts). */
  marks: readonly string[];
  /** The row's width: the selected row is drawn in reverse video across all of it. */
  width: number;
  writerWhy: (n: { unit: string | null; step: string | null }) => string | null;
  agentOf: (step: string) => string | undefined;
}

/** One row of the plan list: a flight, a queued redo or a next step, at list position `index`. */
function planRow(it: PlanItem, index: number, here: boolean, { g, m, cols, reasonW, marks, width, writerWhy, agentOf }: RowContext) {
  const mark = rowMark(here, marks.includes(planKey(it)));
  if (it.kind === 'flight') {
    const f = it.flight;
    return (
      <Line key={`f${f.key}`} selected={here} width={width}>
        {mark}
        <T tok="accent">{g.running}</T>
        {cols(it, g.running, f.state === 'running' ? 'accent' : f.state === 'pending' ? 'muted' : 'warn')}
        {fitWords(flightState(f, m), reasonW)}
      </Line>
    );
  }
  if (it.kind === 'queued') {
    const r = it.redo;
    return (
      <Line key={`q${r.unit}/${r.step}`} selected={here} width={width}>
        {mark}
        <T tok="accent">Q </T>
        {cols(it, 'Q ', 'accent')}
        {fitWords(`backed up to ${r.backup}; relaunch it`, reasonW)}
      </Line>
    );
  }
  const n = it.step;
  const writing = writerWhy(n);
  // Drain and pause hold the step (docs/drain.md): said in place of its reason, the operator model's words.
  const paused = n.unit !== null && n.step !== null ? cellPauseMark(m.pause, n.unit, n.step, agentOf(n.step) ?? null) : null;
  // A named action's queue, skip or hold (docs/redrive.md): the operator model's words too.
  const waits = n.unit !== null && n.step !== null ? cellQueueMark(m.queues, n.unit, n.step) : null;
  const held = paused ?? waits;
  const live = writing ? { text: writing, tone: 'warn' as const } : held ? { text: held, tone: 'warn' as const } : entryLiveState(n, m, agentOf);
  return (
    <Line key={`n${index}`} selected={here} width={width}>
      {mark}
      <T tok={P_TOKEN[n.priority]}>{`P${n.priority}`}</T>{' '}
      {cols(it, 'P1 ', undefined)}
      {live ? <T tok={live.tone}>{fitWords(live.text, reasonW)}</T> : fitWords(n.reason, reasonW)}
    </Line>
  );
}

export function PlanView({ height, width }: { height: number; width: number }) {
  const { ws, filter, redoQueue, cursor, agents, ascii, m, marks } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, redoQueue: s.redoQueue, cursor: s.cursors.plan, agents: s.agents, ascii: s.ascii, m: operatorOf(s), marks: s.marks.plan })),
  );
  const flights = m.runs;
  const items = planItems(m.plan, filter, redoQueue, flights);
  const agentOf = (step: string) => ws.pipeline.steps.find((s) => s.id === step)?.agent;
  // A plan entry whose file has a live writer (another instance's run, an adopted one, or a
  // memory step on the shared file) says so instead of its reason.
  const writers = liveWriters({ ws, agents });
  const writerWhy = (n: { unit: string | null; step: string | null }): string | null => {
    if (n.unit === null || n.step === null) return null;
    const c = ws.cells.find((x) => x.unit === n.unit && x.step === n.step);
    const w = c ? writerOf(writers, c) : null;
    return w && c ? writingWhy(w, c) : null;
  };
  const sel = items[cursor];
  const selKey = keyOf(sel);
  const hasLog = !!selKey && (sel?.kind === 'flight' || agents.recent.some((r) => r.key === selKey));
  const logH = !agents.enabled ? 0 : agents.logOpen ? Math.max(4, Math.floor(height * 0.55)) : hasLog ? Math.min(7, Math.max(3, Math.floor(height / 2.5))) : 0;
  const full = !sel ? '' : sel.kind === 'flight' ? withReason(flightState(sel.flight, m), sel.flight.breaker ? null : sel.flight.reason) : sel.kind === 'queued' ? `queued redo: ${sel.redo.path} was backed up to ${sel.redo.backup}; enter relaunches it` : (writerWhy(sel.step) ?? withAlso(sel.step));
  // Rows from the top: the heading, at least one list row, then the reason and the log pane,
  // each cut to what is left, so the view never grows past its height (an overfull column
  // box makes Ink shrink and overlap its rows).
  const logRoom = Math.min(logH, Math.max(0, height - 2));
  // A reason longer than its rows says so with "…" on its last row rather than stopping
  // silently, its words whole.
  const reason = cutRows(full ? wrapLine(full, width, 2) : [], Math.max(0, Math.min(3, height - 2 - logRoom)), width);
  const listH = Math.max(1, height - 1 - reason.length - logRoom);
  const win = useWindow(cursor, listH, items.length);
  const g = glyphsFor(ascii);
  const auto = agents.snap ? m.autopilot : null;
  // Columns: mark (2), tag (`P1 `, or the running glyph / `Q ` directly against the place),
  // place, action, then the reason. A tag narrower than 3 widens its place column, so the
  // action and reason columns line up on every row; one space after each column, widths
  // from the content (the action column fits `rebuild memory`, 14). Reasons are cut at a
  // word, the whole one under the list.
  const placeW = columnWidth(items.map(placeOf), 9, 16);
  const actionW = columnWidth(items.map(actionOf), 7, 16);
  const reasonW = Math.max(1, width - 5 - placeW - 1 - actionW - 1);
  const counter = items.length ? ` · ${win.start + 1}-${win.end}/${items.length}` : '';
  const redrive = redriveTally(m.queues) ? ` · ${redriveTally(m.queues)}` : '';
  const summary = `${m.plan.length} next step${m.plan.length === 1 ? '' : 's'} · ${redoQueue.length} queued for relaunch${redrive} · ${flights.length} in flight${auto ? ` · autopilot ${auto.state}` : ''}`;
  const cols = (it: PlanItem, tag: string, tok: Token | undefined) => {
    const w = placeW + 3 - stringWidth(tag);
    // Elements, not a fragment of text: every string is drawn by Styled's T.
    return [
      <T key="place">{`${pad(fit(placeOf(it), w), w)} `}</T>,
      <T key="action" tok={tok}>
        {pad(fit(actionOf(it), actionW), actionW)}
      </T>,
      <T key="gap">{' '}</T>,
    ];
  };
  const row: RowContext = { g, m, cols, reasonW, marks, width, writerWhy, agentOf };
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="muted">
        {/* The window counter is kept whole; the summary gives way. */}
        {fit(summary, Math.max(1, width - stringWidth(counter)))}
        {counter}
      </Line>
      <Box flexDirection="column" height={listH} overflow="hidden">
        {items.length === 0 ? <Line tok="muted">{filter ? 'no step matches the filter (esc clears it)' : ws.units.length === 0 ? noUnitsWhy(ws) : 'nothing to do: every step is done or waiting on a human'}</Line> : null}
        {items.slice(win.start, win.end).map((it, i) => planRow(it, win.start + i, win.start + i === cursor, row))}
      </Box>
      {reason.map((l, i) => (
        <Line key={`r${i}`} tok="muted">
          {l}
        </Line>
      ))}
      {logRoom > 0 ? <LogPane cellKey={agents.logOpen && !hasLog ? null : selKey} height={logRoom} width={width} /> : null}
    </Box>
  );
}
