import type { RedoMove, RedoPreview, RedoPreviewCell } from './types.js';

// The preview in words, one line a file, for the dialog and `checkroom redo` (docs/redo.md).
// Raw text: paths come from the workspace, so callers escape where they draw.

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What the words read of a preview: all `checkroom redo --json` prints, so a control room's answer is worded as a local preview. */
export type RedoShown = Pick<RedoPreview, 'origin' | 'override' | 'files' | 'bytes'> & { cells: readonly Pick<RedoPreviewCell, 'unit' | 'step' | 'file'>[] };

/** The preview and what was applied as `checkroom redo --json` prints them (docs/redo.md), whoever applied it. */
export const redoJson = (p: RedoPreview, applied: { id: string; moves: RedoMove[] } | null) => ({
  origin: p.origin,
  override: p.override,
  cells: p.cells.map((c) => ({ unit: c.unit, step: c.step, path: c.path, why: c.why, shared: c.shared, file: c.file })),
  files: p.files,
  bytes: p.bytes,
  refusal: p.refusal,
  applied,
});

export const redoTitle = (p: RedoShown): string =>
  `Redo from ${p.origin.unit} ${p.origin.step}: ${plural(p.cells.length, 'cell')}, ${plural(p.files.length, 'file')} (${p.bytes} B) backed up`;

/** The fork, in words, or null without one. */
export const forkWords = (p: Pick<RedoPreview, 'override'>): string | null => {
  const o = p.override;
  if (!o || (o.agent === undefined && o.prompt === undefined)) return null;
  return [o.agent !== undefined ? `agent ${o.agent}` : '', o.prompt !== undefined ? `prompt ${o.prompt}` : ''].filter(Boolean).join(', ');
};

export function redoLines(p: RedoShown): string[] {
  const marked = p.files.filter((f) => f.marker).length;
  const lines = [`queued in plan order, ${plural(p.cells.length, 'cell')}; attempts and escalations reset:`];
  p.cells.forEach((c, i) => {
    const f = c.file;
    const what = !f ? 'no file yet' : `${f.path} ${f.bytes} B${f.shared ? ', shared: copied, its entry out' : f.marker ? ', has its marker' : ''}`;
    lines.push(`${i + 1}. ${c.unit} ${c.step}: ${what}`);
  });
  if (marked > 0) lines.push(`${plural(marked, 'file')} with its marker: finished work, backed up and redone all the same (that is redo from here)`);
  const fork = forkWords(p);
  if (fork) lines.push(`fork: ${fork}, for these cells' next attempt only`);
  lines.push('every backup is file.bak.<time>, never overwritten; u undoes the whole redo');
  return lines;
}
