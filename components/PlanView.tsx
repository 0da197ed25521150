import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { sanitizeLine } from '../src/sanitize.js';
import { fit, pad } from '../src/cli/text.js';
import { planItems, type PlanItem } from '../src/app/select.js';
import { entryLiveState, flightItems, flightState } from '../src/app/agents.js';
import { wrapLine } from '../src/app/wrap.js';
import { glyphsFor } from '../src/glyphs.js';
import { cellKey } from '../src/types.js';
import type { Token } from '../src/app/theme.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { useWindow } from '../hooks/use-window.js';
import { LogPane } from './LogPane.js';
import { Line, T } from './Styled.js';

// The next-step plan: cells in flight (running, or waiting for their next attempt), the
// steps queued for relaunch by redo, then failures that block, half-products and new work.
// Under the list: the selected entry's full reason, wrapped; under that, the selected run's
// output (or, with L, a tall log pane).

const P_TOKEN: Record<1 | 2 | 3, Token> = { 1: 'fail', 2: 'warn', 3: 'accent' };

const keyOf = (it: PlanItem | undefined): string | null =>
  !it ? null : it.kind === 'flight' ? it.flight.key : it.kind === 'queued' ? cellKey(it.redo.unit, it.redo.step) : it.step.unit && it.step.step ? cellKey(it.step.unit, it.step.step) : null;

export function PlanView({ height, width }: { height: number; width: number }) {
  const { ws, filter, redoQueue, cursor, agents, ascii } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, redoQueue: s.redoQueue, cursor: s.cursors.plan, agents: s.agents, ascii: s.ascii })),
  );
  const flights = flightItems(agents);
  const items = planItems(ws, filter, redoQueue, flights);
  const agentOf = (step: string) => ws.pipeline.steps.find((s) => s.id === step)?.agent;
  const sel = items[cursor];
  const selKey = keyOf(sel);
  const hasLog = !!selKey && (sel?.kind === 'flight' || agents.recent.some((r) => r.key === selKey));
  const logH = !agents.enabled ? 0 : agents.logOpen ? Math.max(4, Math.floor(height * 0.55)) : hasLog ? Math.min(7, Math.max(3, Math.floor(height / 2.5))) : 0;
  const full = !sel ? '' : sel.kind === 'flight' ? `${flightState(sel.flight, agents)}${sel.flight.reason ? ` — ${sel.flight.reason}` : ''}` : sel.kind === 'queued' ? `queued redo: ${sel.redo.path} was backed up to ${sel.redo.backup}; enter relaunches it` : sel.step.reason;
  const reason = full ? wrapLine(`${sanitizeLine(full)}`, width, 2).slice(0, 3) : [];
  const listH = Math.max(1, height - 1 - reason.length - logH);
  const win = useWindow(cursor, listH, items.length);
  const g = glyphsFor(ascii);
  const auto = agents.snap?.autopilot;
  const reasonW = Math.max(10, width - 37);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="muted">
        {`${ws.next.length} next step${ws.next.length === 1 ? '' : 's'} · ${redoQueue.length} queued for relaunch · ${flights.length} in flight`}
        {auto ? ` · autopilot ${auto.on ? 'on' : auto.paused ? 'paused' : 'off'}` : ''}
        {items.length ? ` · ${win.start + 1}-${win.end}/${items.length}` : ''}
      </Line>
      <Box flexDirection="column" height={listH} overflow="hidden">
        {items.length === 0 ? <Line tok="muted">{filter ? 'no step matches the filter (esc clears it)' : 'nothing to do: every step is done or waiting on a human'}</Line> : null}
        {items.slice(win.start, win.end).map((it, i) => {
          const here = win.start + i === cursor;
          const mark = <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>;
          if (it.kind === 'flight') {
            const f = it.flight;
            return (
              <Line key={`f${f.key}`}>
                {mark}
                <T tok="accent">{g.running}</T>
                {pad(fit(`${sanitizeLine(f.unit)} ${sanitizeLine(f.step)}`, 16), 17)}
                <T tok={f.state === 'running' ? 'accent' : 'warn'}>{pad(f.state === 'running' ? 'running' : 'retrying', 13)}</T>
                {fit(sanitizeLine(flightState(f, agents)), reasonW)}
              </Line>
            );
          }
          if (it.kind === 'queued') {
            const r = it.redo;
            return (
              <Line key={`q${r.unit}/${r.step}`}>
                {mark}
                <T tok="accent">Q </T>
                {pad(fit(`${sanitizeLine(r.unit)} ${sanitizeLine(r.step)}`, 16), 17)}
                <T tok="accent">{pad('queued redo', 13)}</T>
                {fit(`backed up to ${sanitizeLine(r.backup)}; relaunch it`, reasonW)}
              </Line>
            );
          }
          const n = it.step;
          const live = entryLiveState(n, agents, agentOf);
          return (
            <Line key={`n${win.start + i}`}>
              {mark}
              <T tok={P_TOKEN[n.priority]}>{`P${n.priority}`}</T> {pad(fit(n.unit ? `${sanitizeLine(n.unit)} ${sanitizeLine(n.step ?? '')}` : 'workspace', 16), 17)}
              {pad(n.action, 13)}
              {live ? <T tok={live.tone}>{fit(sanitizeLine(live.text), reasonW)}</T> : fit(sanitizeLine(n.reason), reasonW)}
            </Line>
          );
        })}
      </Box>
      {reason.map((l, i) => (
        <Line key={`r${i}`} tok="muted">
          {l}
        </Line>
      ))}
      {logH > 0 ? <LogPane cellKey={agents.logOpen && !hasLog ? null : selKey} height={logH} width={width} /> : null}
    </Box>
  );
}
