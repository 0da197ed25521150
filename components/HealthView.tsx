import { Box } from 'ink';
import stringWidth from 'string-width';
import { useShallow } from 'zustand/react/shallow';
import { columnWidth, fit, fitWords, pad, stateFirstColumns } from '../src/app/layout.js';
import { breakerWords, cellStateWords, classCounts, failureWords, nextAttemptLabel, runStateWords, type HealthItem } from '../src/app/agents.js';
import { healthList } from '../src/app/health-filter.js';
import type { AgentsUi } from '../src/app/agents-types.js';
import type { Token } from '../src/app/theme.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { cellSpendLines, spendWords, usd } from '../src/app/spend.js';
import type { CostLedger } from '../src/run/costs.js';
import { useWindow } from '../hooks/use-window.js';
import { Line, T } from './Styled.js';

// Health (DOMAIN.md sections 8–9): per agent its breaker (closed / open with countdown /
// half-open / held), trips and consecutive failures against the threshold; per cell with
// attempts its counts by class, "attempt N of M", fingerprint repeats and state; then the
// global death-spiral counters and autopilot. All of it is replayed from the journal, so a
// restarted checkroom shows the same. Under the list: the selected row in full.

const BREAKER_TOKEN: Record<string, Token> = { closed: 'ok', open: 'fail', half_open: 'warn', held: 'warn' };
const CELL_TOKEN: Record<string, Token> = { idle: 'muted', running: 'accent', retrying: 'warn', needs_human: 'fail', done: 'ok' };

function detailOf(it: HealthItem | undefined, limits: ReturnType<typeof useLimits>, costs?: CostLedger): string[] {
  if (!it) return [];
  if (it.kind === 'agent') {
    const v = it.ledger?.view;
    if (!v) return [`${it.agent}: no launch recorded in the journal yet`];
    return [
      `${it.agent}: breaker ${breakerWords(it.ledger)} · ${failureWords(v.consecutiveFailures, v.threshold)} · ${v.trips} trip${v.trips === 1 ? '' : 's'}${spendWords(costs?.agents[it.agent]) ? ` · spent ${spendWords(costs?.agents[it.agent])}` : ''}`,
      ...(v.openedBy.length ? v.openedBy.slice(-3).map((x) => `  opened by: ${x}`) : ['  no failures since the last success']),
    ];
  }
  const c = it.cell;
  return [
    ...cellSpendLines(costs, c.key),
    `${c.unit} ${c.step} (${c.agent ?? '-'}): ${runStateWords(c.state)}${c.reason ? ` — ${c.reason}` : ''}`,
    `  attempts ${c.attempts.length}${classCounts(c) ? ` · ${classCounts(c)}` : ''}${nextAttemptLabel(c, limits) ? ` · next: ${nextAttemptLabel(c, limits)}` : ''} · same error ×${c.fingerprintRepeats}`,
    ...(c.lastError ? [`  last error: ${c.lastError}`] : []),
    ...(c.hold ? [`  held: ${c.hold.why}; autopilot leaves it alone until you launch it`] : []),
  ];
}

const useLimits = () => useAppStore((s) => s.agents.limits);

/** A row's name and state columns; their widths come from every row. */
const nameOf = (it: HealthItem): string => (it.kind === 'agent' ? `agent ${it.agent}` : `${it.cell.unit} ${it.cell.step}`);
const stateOf = (it: HealthItem, a: AgentsUi): string => (it.kind === 'agent' ? breakerWords(it.ledger) : cellStateWords(it.cell, a));

export function HealthView({ height, width }: { height: number; width: number }) {
  const { agents, cursor, filter } = useAppStore(useShallow((s) => ({ agents: s.agents, cursor: s.cursors.health, filter: s.filter })));
  const limits = useLimits();
  const snap = agents.snap;
  const items = healthList(agents, filter);
  const nAgents = items.filter((i) => i.kind === 'agent').length;
  const sel = items[cursor];
  // Rows: the heading, the list (its last row is a note while no cell has attempts), then
  // the selected row in full, cut so that at least 3 list rows remain. The window is the
  // list's rows minus the note: counting the note as a list row pushed the window's first
  // row out of sight at 60×15 (the box shrank its rows onto each other).
  const detail = detailOf(sel, limits, snap?.ledger.costs).slice(0, Math.max(0, Math.min(4, height - 4)));
  // Journal lines that could not be read are said, not skipped without a word (issue 8 item 7).
  const jw = snap?.warnings ?? [];
  const journalNote = jw.length ? `${jw[0]}${jw.length > 1 ? ` (+${jw.length - 1} more: checkroom recover)` : ''}` : null;
  const listH = Math.max(1, height - 1 - detail.length - (journalNote ? 1 : 0));
  // Under a filter the note says what matched nothing instead (issue 18 item 5: `/` filters Health).
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
  const a = snap.autopilot;
  const spent = spendWords(snap.ledger.costs?.session);
  const inWs = snap.limits.maxLaunchesWorkspace !== undefined ? ` (${snap.ledger.launchesInWorkspace} of ${snap.limits.maxLaunchesWorkspace} in the workspace)` : '';
  const global = `launches ${snap.launchesThisSession} of ${snap.limits.maxLaunches}${inWs} · consecutive failures ${snap.limits.consecutiveFailures} of ${snap.limits.maxConsecutiveFailures}${spent ? ` · spent ${spent}` : ''} · autopilot ${a.on ? 'on' : a.paused ? `paused: ${a.reason}` : 'off'}`;
  const counter = items.length ? ` ${win.start + 1}-${win.end}/${items.length}` : '';
  // Columns: mark (2), name, state, then the counts; one space after each column.
  const cols = stateFirstColumns(width, columnWidth(items.map(nameOf), 10, 24), columnWidth(items.map((it) => stateOf(it, agents)), 6, 22));
  const [nameW, stateW, restW] = [cols.name, cols.state, cols.rest];
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line>
        <T tok={snap.autopilot.paused || snap.limits.consecutiveFailures > 0 ? 'warn' : 'muted'}>{fit(global, Math.max(1, width - stringWidth(counter)))}</T>
        <T tok="muted">{counter}</T>
      </Line>
      {journalNote ? <Line tok="warn">{fit(journalNote, width)}</Line> : null}
      <Box flexDirection="column" height={listH} overflow="hidden">
        {items.slice(win.start, win.end).map((it, i) => {
          const idx = win.start + i;
          const here = idx === cursor;
          const mark = <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>;
          const name = `${pad(fit(nameOf(it), nameW), nameW)} `;
          const state = `${pad(fit(stateOf(it, agents), stateW), stateW)} `;
          if (it.kind === 'agent') {
            const v = it.ledger?.view;
            return (
              <Line key={`a${it.agent}`} selected={here} width={width}>
                {mark}
                {name}
                <T tok={BREAKER_TOKEN[v?.state ?? 'closed']}>{state}</T>
                {/* The spend before the failures: the row is cut at its end on 80 columns, and the
                    failure count in words is the longer part, repeated in full in the detail below. */}
                {fitWords(`trips ${v?.trips ?? 0}${spendWords(snap.ledger.costs?.agents[it.agent]) ? ` · ${spendWords(snap.ledger.costs?.agents[it.agent])}` : ''} · ${failureWords(v?.consecutiveFailures ?? 0, v?.threshold ?? snap.limits.breakerThreshold)}`, restW)}
              </Line>
            );
          }
          const c = it.cell;
          const next = nextAttemptLabel(c, limits);
          const counts = classCounts(c);
          return (
            <Line key={`c${c.key}`} selected={here} width={width}>
              {mark}
              {name}
              <T tok={CELL_TOKEN[c.state]}>{state}</T>
              {fitWords(`${c.attempts.length} att${next ? ` · next ${next}` : ''}${counts ? ` · ${counts}` : ''}${c.fingerprintRepeats > 1 ? ` · same error ×${c.fingerprintRepeats}` : ''}${spendWords(snap.ledger.costs?.cells[c.key]) ? ` · ${usd(snap.ledger.costs!.cells[c.key]!.costUsd)}` : ''}`, restW)}
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
