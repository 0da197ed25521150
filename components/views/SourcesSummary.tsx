import { Box } from 'ink';
import { relative } from 'node:path';
import { useShallow } from 'zustand/react/shallow';
import { fit, pad } from '../../src/text/layout.js';
import { formatAge } from '../../src/recover/render.js';
import { provenTodoIds } from '../../src/sources/level2.js';
import { presetOf } from '../../src/pipeline/presets/index.js';
import type { WorkspaceState } from '../../src/types.js';
import type { Token } from '../../src/text/theme.js';
import { useAppStore } from '../../hooks/use-app-store.js';
import { Line, T } from '../Styled.js';

// The three recovery sources side by side (docs/domain.md, Three sources of progress): level 1 (checkpoint.md, or
// the plans of a gate-file workflow), level 2 (the SQL todo table), level 3 (the disk, which
// decides), then RESUME.md (docs/domain.md, RESUME.md): how old, and where it no longer agrees with the disk.

export const SUMMARY_ROWS = 7;

type Cell = { text: string; tok?: Token };

function columns(ws: WorkspaceState, readonly: boolean): Cell[][] {
  const preset = presetOf(ws.preset);
  const hasCheckpoint = preset.has.checkpoint;
  const cp = ws.checkpoint;
  const nd = ws.discrepancies.length;
  // A checkpoint.md it could not parse is not one that agrees: files on disk it does not list,
  // or lines it could not read (a garbage or binary file has no rows, hence no discrepancy).
  const unlisted = !hasCheckpoint ? 0 : ws.cells.filter((c) => c.checkpoint === null && c.exists).length;
  const unreadableLines = ws.warnings.filter((w) => w.line !== undefined).length;
  const agreement: Cell = nd
    ? { text: `${nd} disagree with the disk`, tok: 'warn' }
    : cp.exists && unlisted
      ? { text: `${unlisted} files on disk not in it`, tok: 'warn' }
      : cp.exists && unreadableLines
        ? { text: `${unreadableLines} lines it cannot read`, tok: 'warn' }
        : { text: 'agrees with the disk', tok: 'ok' };
  const level1: Cell[] = [
    { text: `1 ${preset.words.record}`, tok: 'title' },
    { text: cp.exists ? (hasCheckpoint ? `updated ${cp.lastUpdate ?? '?'}` : cp.lastUpdate ?? 'plan read') : 'missing', tok: cp.exists ? undefined : 'warn' },
    agreement,
    { text: readonly || !hasCheckpoint ? '' : 'w rewrites it', tok: 'muted' },
  ];
  const t = ws.todos;
  const proven = provenTodoIds(t);
  const level2: Cell[] = !t
    ? [{ text: '2 todo table', tok: 'title' }, { text: 'none (optional)', tok: 'muted' }, { text: '' }, { text: '' }]
    : [
        { text: `2 ${relative(ws.root, t.path) || t.path}`, tok: 'title' },
        t.ok ? { text: `${t.ready.length} ready · ${t.disagreements.length} disagree`, tok: t.disagreements.length ? 'warn' : undefined } : { text: 'unreadable (see warnings)', tok: 'fail' },
        { text: `${t.dangling.length} dangling dep${t.dangling.length === 1 ? '' : 's'} · ${t.warnings.length} warning${t.warnings.length === 1 ? '' : 's'}`, tok: t.dangling.length || t.warnings.length ? 'warn' : 'muted' },
        { text: readonly || !proven.length ? '' : `t writes back ${proven.length} proven`, tok: 'muted' },
      ];
  const onDisk = ws.cells.filter((c) => c.exists && c.disk !== 'missing').length;
  const done = ws.cells.filter((c) => c.status === 'done').length;
  const level3: Cell[] = [
    { text: `3 ${preset.words.proof}`, tok: 'title' },
    { text: `${ws.units.length} ${preset.words.unit}${ws.units.length === 1 ? '' : 's'} · ${onDisk}/${ws.cells.length} on disk` },
    { text: `${done} done · ${ws.partials.length} partial · ${ws.suspects.length} suspect`, tok: ws.partials.length ? 'warn' : undefined },
    { text: `${ws.warnings.length} warning${ws.warnings.length === 1 ? '' : 's'}`, tok: ws.warnings.length ? 'warn' : 'muted' },
  ];
  return [level1, level2, level3];
}

export function SourcesSummary({ width }: { width: number }) {
  const { ws, readonly, resume } = useAppStore(useShallow((s) => ({ ws: s.ws, readonly: s.readonly, resume: s.recovery.resume })));
  const cols = columns(ws, readonly);
  const preset = presetOf(ws.preset);
  const colW = Math.max(12, Math.floor((width - 2) / 3));
  const cp = ws.checkpoint;
  const nd = ws.discrepancies.length;
  const ready = ws.todos?.ok ? ws.todos.ready : [];
  // A ready todo the disk contradicts is named, not listed as plainly ready.
  const contradicted = ws.todos?.ok ? ws.todos.readyContradicted : [];
  return (
    <Box flexDirection="column">
      <Line>
        <T tok="title">{preset.words.title}</T>
        {cp.exists ? (preset.has.checkpoint ? ` (${cp.lang}) updated ${cp.lastUpdate ?? 'no date'}` : ` · ${cp.lastUpdate ?? ''}`) : ' is missing'} · {nd} discrepanc
        {nd === 1 ? 'y' : 'ies'} · {ws.warnings.length} warning{ws.warnings.length === 1 ? '' : 's'}
      </Line>
      {[0, 1, 2, 3].map((row) => (
        <Line key={row}>
          {cols.map((c, i) => (
            <T key={i} tok={c[row].tok}>
              {pad(fit(c[row].text, colW - 2), colW - 1) + (i < 2 ? '│' : '')}
            </T>
          ))}
        </Line>
      ))}
      <Line>
        <T tok="title">{resume?.file ?? 'RESUME.md'}</T>{' '}
        {!resume ? (
          <T tok="muted">reading…</T>
        ) : !resume.exists ? (
          <T tok="warn">{fit(`missing${readonly ? '' : ' · W writes it'}`, width - 12)}</T>
        ) : (
          <T tok={resume.stale ? 'warn' : 'ok'}>
            {fit(`${formatAge(resume.ageMs)}${resume.generatedAt ? ` (${resume.generatedAt})` : ''} · ${resume.disagreements.length ? `${resume.disagreements.length} statements the disk contradicts` : resume.stale ? resume.why ?? 'stale' : 'agrees with the disk'}${readonly ? '' : ' · W rewrites it'}`, width - 12)}
          </T>
        )}
      </Line>
      <Line tok={contradicted.length ? 'warn' : 'muted'}>
        {fit(
          ws.todos
            ? `ready todos: ${ready.length ? ready.join(', ') : 'none'}${contradicted.length ? ` · the disk contradicts ${contradicted.map((x) => x.todoId).join(', ')}` : ''}`
            : 'ready todos: no todo table',
          width,
        )}
      </Line>
    </Box>
  );
}
