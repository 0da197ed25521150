import { Box } from 'ink';
import { useShallow } from 'zustand/react/shallow';
import { fit, fitPath, fitWords, pad } from '../../src/text/layout.js';
import { partialItems, type PartialItem } from '../../src/ui/store/select.js';
import { liveWriters, writerOf, writerWord, writingWhy } from '../../src/ui/agents/live-writers.js';
import { HANDS_OFF, liveParts, liveWord, uncheckedNote } from '../../src/holders/words.js';
import type { Token } from '../../src/text/theme.js';
import type { Verdict } from '../../src/types.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { useFileTail } from '../../hooks/use-file-tail.js';
import { useWindow } from '../../hooks/use-window.js';
import { Line, T } from '../Styled.js';
import { rowMark } from '../RowMark.js';
import { partialKey } from '../../src/ui/keys/item-keys.js';

// Half-products (docs/domain.md, Half-products), then suspects (a marker on a tiny body) in their
// own section; the selected file's reason and tail below the list.

const VERDICT_TOKEN: Record<Verdict, Token> = { almost_certainly_partial: 'fail', truncated: 'fail', maybe_complete: 'warn', suspicious: 'warn' };

type Row = { kind: 'section'; text: string } | { kind: 'item'; item: PartialItem; index: number };

function rowsOf(items: PartialItem[]): Row[] {
  const rows: Row[] = [];
  items.forEach((item, index) => {
    if (index === 0 || items[index - 1].section !== item.section) {
      const n = items.filter((i) => i.section === item.section).length;
      rows.push({ kind: 'section', text: item.section === 'partial' ? `Half-products (${n})` : `Suspicious: marker on a tiny body (${n})` });
    }
    rows.push({ kind: 'item', item, index });
  });
  return rows;
}

export function PartialsView({ height, width }: { height: number; width: number }) {
  const { ws, filter, skipped, cursor, agents, held, marks } = useAppStore(
    useShallow((s) => ({ ws: s.ws, filter: s.filter, skipped: s.skipped, cursor: s.cursors.partials, agents: s.agents, held: s.held, marks: s.marks.partials })),
  );
  const items = partialItems(ws, filter, skipped);
  // A file with a live writer is shown as being written, not as a verdict.
  const writers = liveWriters({ ws, agents });
  const writerAt = (i: PartialItem) => writerOf(writers, i.file);
  // …and so is one held open by a process checkroom did not launch, or changed just now.
  const heldAt = (i: PartialItem) => held.byPath.get(i.file.path) ?? null;
  const liveText = (i: PartialItem): string | null => {
    const w = writerAt(i);
    if (w) return writerWord(w);
    const h = heldAt(i);
    return h ? liveWord(h) : null;
  };
  // The selected file's why: one row, or two when a held file's sentence does not fit (who
  // writes it first, whose it is and what is not offered below, never cut off).
  const whyRows = (i: PartialItem): string[] => {
    const head = `── ${i.file.unit} ${i.file.step}: `;
    const w = writerAt(i);
    if (w) return [head + writingWhy(w, i.file)];
    const h = heldAt(i);
    if (!h) return [head + i.file.reason];
    const { who, origin } = liveParts(h);
    const one = `${head}${who} ${origin}: ${HANDS_OFF}`;
    return one.length <= width ? [one] : [head + who, `   ${origin}: ${HANDS_OFF}`];
  };
  const rows = rowsOf(items);
  const sel = items[Math.min(cursor, items.length - 1)] ?? null;
  const { tail, note } = useFileTail(ws.root, sel?.file.path ?? null, ws.scannedAt, ws.pipeline.outsideRoots);
  const previewH = items.length ? Math.min(8, Math.max(3, Math.floor(height / 2))) : 0;
  const listH = Math.max(1, height - 1 - previewH);
  const selRow = rows.findIndex((r) => r.kind === 'item' && r.index === cursor);
  const win = useWindow(Math.max(0, selRow), listH, rows.length);
  const tailLines = tail?.lines ?? [];
  const tailRoom = Math.max(0, previewH - 1 - (sel ? whyRows(sel).length : 1));
  return (
    <Box flexDirection="column" height={height} overflow="hidden">
      <Line tok="muted">
        {`${ws.partials.length} half-product${ws.partials.length === 1 ? '' : 's'} · ${ws.suspects.length} suspicious`}
        {/* With a supervisor the journal keeps skips across restarts. */}
        {skipped.length ? ` · ${skipped.length} skipped${agents.enabled ? '' : ' this session'}` : ''}
        {filter ? ` · ${items.length} match the filter` : ''}
        {/* Not root: a writer of another user's would not show, so say so. */}
        {held.unchecked ? ` · ${uncheckedNote(held.unchecked)}` : ''}
      </Line>
      <Box flexDirection="column" height={listH}>
        {items.length === 0 ? (
          <Line tok="muted">{filter || skipped.length ? 'nothing to show (esc clears the filter)' : 'no half-products: every existing artifact ends with its marker'}</Line>
        ) : null}
        {rows.slice(win.start, win.end).map((r, i) =>
          r.kind === 'section' ? (
            <Line key={`s${win.start + i}`} tok="title">
              {r.text}
            </Line>
          ) : (
            <Line key={r.item.file.path} selected={r.index === cursor} width={width}>
              {rowMark(r.index === cursor, marks.includes(partialKey(r.item)))}
              {liveText(r.item) !== null ? <T tok="accent">{pad(liveText(r.item)!, 25)}</T> : <T tok={VERDICT_TOKEN[r.item.file.verdict]}>{pad(r.item.file.verdict, 25)}</T>}
              {pad(String(r.item.file.chars), 7)}
              {fitPath(r.item.file.path, Math.max(10, width - 35))}
            </Line>
          ),
        )}
      </Box>
      {sel ? (
        <Box flexDirection="column" height={previewH}>
          {whyRows(sel).map((row, i) => (
            <Line key={`why${i}`} tok={i === 0 && heldAt(sel) ? 'warn' : 'muted'}>
              {fitWords(row, width)}
            </Line>
          ))}
          <Line tok="muted">{note ?? `── last lines of ${fitPath(sel.file.path, Math.max(10, width - 20))}`}</Line>
          {tailLines.slice(Math.max(0, tailLines.length - tailRoom)).map((l, i) => (
            <Line key={i}>{fit(l, width) || ' '}</Line>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}
