import { describe, expect, it } from 'vitest';
import { drainWords, planRedrive, planRedriveUndo, undoArgs } from '../../../src/ui/agents/redrive.js';
import { bulkRecordOf } from '../../../src/bulk/apply.js';
import { replayJournal } from '../../../src/run/journal/ledger-fold.js';
import type { BulkPreview } from '../../../src/bulk/preview.js';
import type { JournalEvent } from '../../../src/run/journal/journal.js';
import type { WorkspaceConfig } from '../../../src/pipeline/config/types.js';
import { launchEv } from '../../helpers/history-journal.js';

// The room's :redrive decisions on plain values (docs/redrive.md): the undo's words, the
// preview dialog, what is said when nothing passes.

const cfg = { breaker: { threshold: 9, cooldownMs: 10_000, maxCooldownMs: 60_000 }, limits: { maxLaunches: 99, maxConsecutiveFailures: 99 } };
const cells = [{ unit: 'ch01', step: 'draft' }, { unit: 'ch02', step: 'draft' }];
const sup = { describeCommand: (unit: string, step: string) => ({ agent: 'writer', argv: [], cwd: '/w', text: `node agent.mjs ${unit} ${step}`, resources: '' }) };
const config = { agents: { writer: {} }, pipeline: { steps: [] } } as unknown as WorkspaceConfig;
const preview = (over: Partial<BulkPreview> = {}): BulkPreview => ({
  action: 'relaunch', name: 'rl', filter: 'class=RATE_LIMITED', costUsd: 1, runMs: 60_000, excluded: [],
  cells: cells.map((c) => ({ ...c, key: `${c.unit}/${c.step}`, agent: 'writer', executor: 'local', status: 'failed' as const, lastFailure: null })), ...over,
});

describe(':redrive planners', () => {
  it('undoArgs reads "undo", "undo NAME" and "undo name=NAME"; a filter is not an undo', () => {
    expect(undoArgs('undo')).toEqual({ which: null });
    expect(undoArgs(' undo rate-limit-0200 ')).toEqual({ which: 'rate-limit-0200' });
    expect(undoArgs('undo name=rl')).toEqual({ which: 'rl' });
    expect(undoArgs('class=RATE_LIMITED')).toBeNull();
  });

  it('the undo dialog says what comes back and what already ran; nothing to undo is said', () => {
    const rec = { ...bulkRecordOf({ action: 'relaunch', name: 'rl', filter: 'class=RATE_LIMITED', cells }, 10), v: 1 } as JournalEvent;
    const l = replayJournal([rec, { ...launchEv('x', 20, 'ch01', 'draft'), v: 1 } as JournalEvent], 100, cfg);
    const d = planRedriveUndo(l, 'rl');
    expect(d).toMatchObject({ ask: { title: 'Undo rl', pending: { type: 'agents', action: { kind: 'redrive_undo' } } } });
    expect('ask' in d && d.ask.lines).toEqual(['rl: relaunch of 2 cells (class=RATE_LIMITED)', '1 cells unqueued, their counts back: ch02/draft', '1 already ran and stay as they are: ch01/draft']);
    expect(planRedriveUndo(replayJournal([], 100, cfg), null)).toEqual({ say: 'no set action to undo', tone: 'warn' });
  });

  it('the preview dialog carries the order and, before the first launch from a config, its command', () => {
    const d = planRedrive(preview(), replayJournal([], 100, cfg), sup, config);
    expect(d).toMatchObject({ ask: { title: 'Redrive rl: relaunch 2 cells', pending: { type: 'agents', action: { kind: 'redrive', order: { action: 'relaunch', name: 'rl', cells }, consent: { unit: 'ch01', step: 'draft' } } } } });
    expect('ask' in d && d.ask.lines).toContain('  node agent.mjs ch01 draft');
    const none = planRedrive(preview({ cells: [], excluded: [{ ...preview().cells[0], why: 'has its marker: never redone' }] }), replayJournal([], 100, cfg), sup, config);
    expect(none).toEqual({ say: 'redrive class=RATE_LIMITED: no cell to relaunch; 1 named but left out (ch01/draft: has its marker: never redone)', tone: 'warn' });
  });

  it(':redrive drain says what started and why the rest did not', () => {
    expect(drainWords({ started: [], refused: [] })).toBe('the relaunch queue is empty');
    expect(drainWords({ started: ['ch01/draft'], refused: [{ key: 'ch02/draft', why: 'breaker writer held by the operator' }] })).toBe(
      'relaunch queue: 1 started, the rest as slots free; not launched: ch02/draft (breaker writer held by the operator)',
    );
  });
});
