import { Box } from 'ink';
import { relative } from 'node:path';
import { useShallow } from 'zustand/react/shallow';
import { CLAIM_ASCII, CLAIM_EMOJI } from '../src/glyphs.js';
import { sanitizeLine } from '../src/sanitize.js';
import { fit, pad } from '../src/cli/text.js';
import { sourceItems, type SourceItem } from '../src/app/select.js';
import type { DiskState } from '../src/types.js';
import { useAppStore } from '../hooks/use-app-store.js';
import { useWindow } from '../hooks/use-window.js';
import { Line, T } from './Styled.js';
import { SourcesSummary, SUMMARY_ROWS } from './SourcesSummary.js';

// The recovery sources side by side (summary), then every place they disagree, one row each:
// checkpoint.md vs the disk (the markers decide, DOMAIN.md section 3), the todo table vs the
// disk, dangling todo dependencies, RESUME.md statements the disk contradicts, warnings.

const DISK: Record<DiskState, string> = { done: 'done', partial: 'partial', missing: 'missing', unreadable: 'unreadable' };

function Row({ it, width, ascii, root }: { it: SourceItem; width: number; ascii: boolean; root: string }) {
  const rest = (used: number) => Math.max(10, width - used);
  switch (it.kind) {
    case 'discrepancy': {
      const d = it.d;
      const claim = ascii ? CLAIM_ASCII[d.checkpoint] : `${CLAIM_EMOJI[d.checkpoint]} ${CLAIM_ASCII[d.checkpoint]}`;
      return (
        <>
          {pad(fit(`${sanitizeLine(d.unit)} ${sanitizeLine(d.step)}`, 16), 16)} <T tok="warn">{pad(fit(claim, 15), 15)}</T> {pad(DISK[d.disk], 9)}
          {fit(sanitizeLine(d.note), rest(46))}
        </>
      );
    }
    case 'todo': {
      const t = it.t;
      return (
        <>
          {pad(fit(`todo ${sanitizeLine(t.todoId)}`, 16), 16)} <T tok="warn">{pad(fit(sanitizeLine(t.todo), 15), 15)}</T> {pad(fit(sanitizeLine(t.disk), 9), 9)}
          {fit(sanitizeLine(t.note), rest(46))}
        </>
      );
    }
    case 'dangling':
      return (
        <>
          <T tok="warn">{pad('dangling dep', 16)}</T> {fit(`todo ${sanitizeLine(it.dep.todo_id)} depends on ${sanitizeLine(it.dep.depends_on)}, which does not exist`, rest(19))}
        </>
      );
    case 'resume':
      return (
        <>
          <T tok="warn">{pad('RESUME.md', 16)}</T> {fit(sanitizeLine(it.text), rest(19))}
        </>
      );
    case 'warning': {
      const w = it.w;
      const src = w.source.startsWith(root) ? relative(root, w.source) || w.source : w.source;
      return (
        <>
          <T tok="warn">{pad('warning', 16)}</T> {fit(`${sanitizeLine(src)}${w.line ? `:${w.line}` : ''}: ${sanitizeLine(w.message)}`, rest(19))}
        </>
      );
    }
  }
}

export function SourcesView({ height, width }: { height: number; width: number }) {
  const { ws, filter, cursor, ascii, resume } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, cursor: s.cursors.sources, ascii: s.ascii, resume: s.recovery.resume })),
  );
  const items = sourceItems(ws, filter, resume?.disagreements);
  const win = useWindow(cursor, Math.max(1, height - SUMMARY_ROWS - 1), items.length);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <SourcesSummary width={width} />
      <Line tok="muted">{`  ${pad('unit step', 16)} ${pad('claim', 15)} ${pad('disk', 9)} note`}</Line>
      {items.length === 0 ? <Line tok="ok">{filter ? 'nothing matches the filter (esc clears it)' : 'every source agrees with the disk'}</Line> : null}
      {items.slice(win.start, win.end).map((it, i) => {
        const here = win.start + i === cursor;
        return (
          <Line key={`${it.kind}${win.start + i}`}>
            <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>
            <Row it={it} width={width} ascii={ascii} root={ws.root} />
          </Line>
        );
      })}
    </Box>
  );
}
