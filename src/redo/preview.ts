import type { Cell, PipelineDef } from '../types.js';
import { cellKey } from '../types.js';
import { redoClosure } from './closure.js';
import type { RedoFile, RedoOverride, RedoPreview, RedoPreviewCell } from './types.js';

// previewRedo: the whole action decided from facts gathered once (gather.ts), with no I/O, so
// the dialog, `checkroom redo` and its --json say the same (docs/redo.md, The preview).

export interface RedoFacts {
  pipeline: PipelineDef;
  units: readonly string[];
  cells: readonly Cell[];
  origin: { unit: string; step: string };
  override: RedoOverride | null;
  /** Path → size now; absent: no file. */
  sizes: ReadonlyMap<string, number>;
  /** Path → why it is being written now, a sentence naming the file (src/holders/words.ts). */
  live: ReadonlyMap<string, string>;
  /** Cells with a run in flight, by cellKey, and its words. */
  running: ReadonlyMap<string, string>;
}

export function previewRedo(f: RedoFacts): RedoPreview {
  const byKey = new Map(f.cells.map((c) => [cellKey(c.unit, c.step), c]));
  const files = new Map<string, RedoFile>();
  const cells: RedoPreviewCell[] = redoClosure(f.pipeline, f.units, f.cells, f.origin).map((c) => {
    const now = byKey.get(cellKey(c.unit, c.step));
    const bytes = f.sizes.get(c.path);
    const file = bytes === undefined ? null : (files.get(c.path) ?? { path: c.path, bytes, marker: !c.shared && (now?.marker ?? false), shared: c.shared });
    if (file) files.set(c.path, file);
    return { ...c, claim: now?.checkpoint ?? null, file };
  });
  const running = cells.find((c) => f.running.has(cellKey(c.unit, c.step)));
  const live = [...files.keys()].find((p) => f.live.has(p));
  const refusal = running
    ? `${running.unit} ${running.step} has a run in flight (${f.running.get(cellKey(running.unit, running.step))}); cancel it or let it end, then redo: nothing was touched`
    : live !== undefined
      ? `${f.live.get(live)}; wait until it stops, then redo: nothing was touched`
      : null;
  const list = [...files.values()];
  return { origin: f.origin, override: f.override, cells, files: list, bytes: list.reduce((s, x) => s + x.bytes, 0), refusal };
}
