import { Box } from 'ink';
import { relative } from 'node:path';
import { useShallow } from 'zustand/react/shallow';
import { CLAIM_WORD } from '../../src/text/glyphs.js';
import { CLAIM_GLYPH } from '../../src/checkpoint/glyphs.js';
import { columnWidth, fit, fitWords, pad } from '../../src/text/layout.js';
import { sourceItems, type SourceItem } from '../../src/ui/store/select.js';
import { presetOf } from '../../src/pipeline/presets/index.js';
import type { DiskState } from '../../src/types.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useWindow } from '../../hooks/use-window.js';
import { Line, T } from '../Styled.js';
import { SourcesSummary, SUMMARY_ROWS } from './SourcesSummary.js';

// The recovery sources side by side (summary), then every place they disagree, one row each:
// checkpoint.md vs the disk (the markers decide, docs/domain.md, Three sources of progress), the todo table vs the
// disk, dangling todo dependencies, RESUME.md statements the disk contradicts, warnings.

const DISK: Record<DiskState, string> = { done: 'done', partial: 'partial', missing: 'missing', unreadable: 'unreadable' };

/** A row as columns: where, then (for a disagreement) the claim and the disk, then the note. */
interface Cols {
  where: string;
  whereTok?: Token;
  claim?: string;
  disk?: string;
  note: string;
}

function colsOf(it: SourceItem, ascii: boolean, root: string): Cols {
  switch (it.kind) {
    case 'discrepancy': {
      const d = it.d;
      const claim = ascii ? CLAIM_WORD[d.checkpoint] : `${CLAIM_GLYPH[d.checkpoint]} ${CLAIM_WORD[d.checkpoint]}`;
      return { where: `${d.unit} ${d.step}`, claim, disk: DISK[d.disk] ?? String(d.disk), note: d.note };
    }
    case 'todo': {
      const t = it.t;
      return { where: `todo ${t.todoId}`, claim: t.todo, disk: t.disk, note: t.note };
    }
    case 'ready':
      return { where: `ready ${it.r.todoId}`, whereTok: 'warn', note: it.r.note };
    case 'dangling':
      return { where: 'dangling dep', whereTok: 'warn', note: `todo ${it.dep.todo_id} depends on ${it.dep.depends_on}, which does not exist` };
    case 'resume':
      return { where: 'RESUME.md', whereTok: 'warn', note: it.text };
    case 'scheduler': {
      const f = it.f;
      const where = f.kind === 'error' ? 'scheduler' : f.jobId ? `job ${f.jobId}` : `${f.unit} ${f.step}`;
      const cell = f.kind === 'error' || !f.jobId ? '' : `${f.unit} ${f.step}: `;
      return { where, whereTok: 'warn', note: `${cell}${f.note}` };
    }
    case 'warning': {
      const w = it.w;
      const src = w.source.startsWith(root) ? relative(root, w.source) || w.source : w.source;
      return { where: 'warning', whereTok: 'warn', note: `${src}${w.line ? `:${w.line}` : ''}: ${w.message}` };
    }
  }
}

/** Column widths from every row (not just the visible ones, so they hold still while
 *  scrolling) and the heading. The first column stays 16 wide, cut with …: the other kinds
 *  of row are labelled in it, and long workflow ids would leave the note no room. */
function widthsOf(rows: readonly Cols[]): { where: number; claim: number; disk: number } {
  return {
    where: 16,
    claim: columnWidth(['claim', ...rows.map((r) => r.claim ?? '')], 5, 16),
    disk: columnWidth(['disk', ...rows.map((r) => r.disk ?? '')], 4, 12),
  };
}

type Widths = ReturnType<typeof widthsOf>;

/** One row, its text inside the Line (no text outside Styled's T and Line). */
function Row({ c, w, width, here }: { c: Cols; w: Widths; width: number; here: boolean }) {
  // The mark (2) and one space after each column; the note takes what is left.
  const used = 2 + w.where + 1;
  const mark = <T tok={here ? 'accent' : undefined}>{here ? '› ' : '  '}</T>;
  if (c.claim === undefined) {
    return (
      <Line selected={here} width={width}>
        {mark}
        <T tok={c.whereTok}>{pad(fit(c.where, w.where), w.where)}</T> {fitWords(c.note, Math.max(1, width - used))}
      </Line>
    );
  }
  return (
    <Line selected={here} width={width}>
      {mark}
      <T tok={c.whereTok}>{pad(fit(c.where, w.where), w.where)}</T> <T tok="warn">{pad(fit(c.claim, w.claim), w.claim)}</T> {pad(fit(c.disk ?? '', w.disk), w.disk)}{' '}
      {fitWords(c.note, Math.max(1, width - used - w.claim - 1 - w.disk - 1))}
    </Line>
  );
}

/** Rows of the summary that fit above the list: all of it, unless that leaves under 3 list rows. */
export const summaryRoom = (height: number): number => Math.max(1, Math.min(SUMMARY_ROWS, height - 1 - 3));

export function SourcesView({ height, width }: { height: number; width: number }) {
  const { ws, filter, cursor, ascii, resume, scheduler } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, cursor: s.cursors.sources, ascii: s.ascii, resume: s.recovery.resume, scheduler: s.recovery.scheduler ?? null })),
  );
  const items = sourceItems(ws, filter, resume?.disagreements, scheduler);
  const rows = items.map((it) => colsOf(it, ascii, ws.root));
  const w = widthsOf(rows);
  // On a short terminal the summary is cut from the bottom rather than squeezed: an overfull
  // column box makes Ink shrink rows onto each other (it drew the level columns over the
  // summary's first line at 60×15).
  const sumH = summaryRoom(height);
  const listH = Math.max(1, height - sumH - 1);
  const win = useWindow(cursor, listH, items.length);
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Box flexDirection="column" height={sumH} flexShrink={0} overflow="hidden">
        <Box flexDirection="column" flexShrink={0}>
          <SourcesSummary width={width} />
        </Box>
      </Box>
      <Line tok="muted">{fit(`  ${pad(`${presetOf(ws.preset).words.unit} step`, w.where)} ${pad('claim', w.claim)} ${pad('disk', w.disk)} note`, width)}</Line>
      <Box flexDirection="column" height={listH} overflow="hidden">
        {items.length === 0 ? <Line tok="ok">{filter ? 'nothing matches the filter (esc clears it)' : 'every source agrees with the disk'}</Line> : null}
        {rows.slice(win.start, win.end).map((c, i) => (
          <Row key={`${items[win.start + i].kind}${win.start + i}`} c={c} w={w} width={width} here={win.start + i === cursor} />
        ))}
      </Box>
    </Box>
  );
}
