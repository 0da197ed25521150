import { describe, expect, it } from 'vitest';
import type { RecoverReport } from '../../../src/recover/report.js';
import type { BackupRow, RecoveryUi, ResumeStatus } from '../../../src/ui/recovery/types.js';
import { initialRecovery } from '../../../src/ui/recovery/types.js';
import type { AppState } from '../../../src/ui/store/types.js';
import {
  backupsPanel,
  hunksArrived,
  overlayRoute,
  planQuit,
  planRebuild,
  planRestore,
  planWriteBack,
  REPORT_SCROLL,
  rebuildAsk,
  reportArrived,
  resumeAsk,
  restoreAsk,
  scrollPlan,
} from '../../../src/ui/recovery/planners.js';
import { tokens } from '../../helpers/store.js';

// The recovery slice's pure planners (issue 9 item 3) on plain values: a report's rebuild
// list, a RESUME.md status, a backups panel, a key, with no store and no disk behind them.

const report = (rebuilt: Partial<RecoverReport['rebuilt'][number]>[]): RecoverReport => ({ rebuilt }) as unknown as RecoverReport;
const row = (path: string): BackupRow => ({ path, bytes: 10, ageMs: 0, summary: 'identical to the current file' });
const panel = (rows: BackupRow[], cursor = 0) => ({ ...backupsPanel('a.md', rows, null), cursor });
const key = (k: string) => tokens(k)[0];
const state = (recovery: Partial<RecoveryUi>, patch: Partial<AppState> = {}): AppState =>
  ({ readonly: false, busy: null, quit: false, dialog: null, recovery: { ...initialRecovery(), ...recovery }, ...patch }) as AppState;

describe('rebuild', () => {
  it('goes with what checkroom can rebuild, keeping apart what needs an agent', () => {
    const r = report([
      { target: 'checkpoint.md', reason: 'two cells disagree', manual: false, done: false },
      { target: 'RESUME.md', reason: 'stale', manual: false, done: true },
      { target: 'meta/memory.md', reason: 'an agent writes it', manual: true, done: false },
    ]);
    expect(planRebuild(r)).toEqual({ go: { targets: [r.rebuilt[0]], manual: [r.rebuilt[2]] } });
    expect(planRebuild(report([r.rebuilt[1], r.rebuilt[2]]))).toEqual({
      say: 'nothing to rebuild here: every file checkroom writes agrees with the disk; 1 item need an agent or the operator (see the report)',
      tone: 'info',
    });
  });

  it('names each backup, or that the file is created, then what is not done here', () => {
    const ask = rebuildAsk(
      [
        { file: 'checkpoint.md', backup: 'checkpoint.md.bak.1', reason: 'two cells disagree' },
        { file: 'RESUME.md', backup: null, reason: 'missing' },
      ],
      report([{ target: 'meta/memory.md', reason: 'an agent writes it' }]).rebuilt,
    );
    expect(ask.title).toBe('Rebuild checkpoint.md and RESUME.md from the disk');
    expect(ask.lines).toEqual([
      'checkpoint.md → checkpoint.md.bak.1 (a copy of the old file)',
      'checkpoint.md: two cells disagree',
      'RESUME.md is created',
      'RESUME.md: missing',
      'not done here: meta/memory.md: an agent writes it',
    ]);
    expect(ask.pending).toEqual({
      type: 'recovery',
      action: {
        kind: 'rebuild',
        targets: [
          { file: 'checkpoint.md', backup: 'checkpoint.md.bak.1' },
          { file: 'RESUME.md', backup: null },
        ],
      },
    });
  });
});

describe('RESUME.md and the todo table', () => {
  it('W names the backup and the fixes; without a status it creates RESUME.md', () => {
    const st: ResumeStatus = {
      file: 'RESUME.md',
      exists: true,
      ageMs: 1,
      generatedAt: null,
      disagreements: ['ch03 is done'],
      stale: true,
      why: 'contradicted by the disk',
    };
    expect(resumeAsk(st, 'RESUME.md.bak.1')).toEqual({
      title: 'Write RESUME.md: contradicted by the disk',
      lines: ['RESUME.md → RESUME.md.bak.1 (a copy of the old letter)', 'RESUME.md: rewritten from the disk (written atomically)', '  fixes: ch03 is done'],
      pending: { type: 'recovery', action: { kind: 'resume', file: 'RESUME.md', backup: 'RESUME.md.bak.1' } },
    });
    expect(resumeAsk(null, null).lines[0]).toBe('RESUME.md is created');
  });

  it('t says why there is nothing to write back', () => {
    const ws = { root: '/w', todos: null } as unknown as AppState['ws'];
    expect(planWriteBack(ws)).toEqual({ say: 'no readable todo table in this workspace (level 2 is optional)', tone: 'info' });
    const none = { root: '/w', todos: { ok: true, path: '/w/todos.db', disagreements: [], todos: [] } } as unknown as AppState['ws'];
    expect(planWriteBack(none)).toEqual({ say: 'todos.db: no todo is proven done on disk while the table says otherwise', tone: 'info' });
  });
});

describe('the backups panel', () => {
  it('opens on the newest backup, or the one kept; says when there is none', () => {
    expect(backupsPanel('a.md', [row('a.md.bak.2'), row('a.md.bak.1')], 'a.md.bak.1')).toMatchObject({ cursor: 1, hunks: null, note: null });
    expect(backupsPanel('a.md', [], null)).toEqual({
      file: 'a.md',
      rows: [],
      cursor: 0,
      hunks: [],
      offset: 0,
      note: 'no backups of a.md (backups are named a.md.bak.<time>)',
    });
  });

  it('shows diff hunks only for the backup still selected', () => {
    const r = { ...initialRecovery(), backups: panel([row('a.md.bak.2'), row('a.md.bak.1')], 1) };
    expect(hunksArrived(r, 'a.md', 'a.md.bak.2', ['-x'])).toEqual({});
    expect(hunksArrived(r, 'a.md', 'a.md.bak.1', ['-x'])).toEqual({ backups: { ...r.backups, hunks: ['-x'], offset: 0 } });
  });

  it('moving selects another backup and asks for its diff; paging scrolls the hunks', () => {
    const r = { ...initialRecovery(), backups: { ...panel([row('a.md.bak.2'), row('a.md.bak.1')]), hunks: ['1', '2', '3'] } };
    expect(scrollPlan(r, 'move.down', 10)).toEqual({ patch: { backups: { ...r.backups, cursor: 1, hunks: null, offset: 0 } }, load: 'a.md.bak.1' });
    expect(scrollPlan(r, 'move.up', 10)).toBeNull();
    expect(scrollPlan(r, 'page.down', 10)?.patch.backups?.offset).toBe(2);
  });

  it('enter restores the selected backup, keeping the current version', () => {
    const r = { ...initialRecovery(), backups: panel([row('a.md.bak.2')]) };
    expect(planRestore(r)).toEqual({ go: { file: 'a.md', row: row('a.md.bak.2') } });
    expect(planRestore({ ...r, backups: panel([]) })).toEqual({ say: 'no backup selected', tone: 'warn' });
    expect(restoreAsk('a.md', row('a.md.bak.2'), 'a.md.bak.3', []).lines).toEqual([
      'a.md → a.md.bak.3 (the current version is kept)',
      'a.md.bak.2 → a.md (copied back; the backup stays)',
    ]);
    expect(restoreAsk('a.md', row('a.md.bak.2'), null, []).title).toBe('Restore a.md from bak.2');
  });
});

describe('keys over the overlays', () => {
  const withReport = { ...initialRecovery(), recover: { report: report([]), offset: 0 } };

  it('no overlay: the view gets the key', () => {
    expect(overlayRoute(initialRecovery(), key('j'), 'progress')).toBe('view');
  });

  it('the report scrolls with movement, keeps q, and closes on any other key of the view', () => {
    expect(overlayRoute(withReport, key('j'), 'progress')).toEqual({ scroll: 'move.down' });
    expect(overlayRoute(withReport, key('q'), 'progress')).toEqual({ run: 'quit' });
    expect(overlayRoute(withReport, key('2'), 'progress')).toEqual({ close: 'recover' });
    expect(scrollPlan(withReport, 'move.bottom', 10)).toEqual({ patch: { recover: { ...withReport.recover, offset: REPORT_SCROLL } }, load: null });
  });

  it('the quit offer takes its own keys and swallows the rest', () => {
    const offer = { ...initialRecovery(), quitOffer: true };
    expect(overlayRoute(offer, key('y'), 'progress')).toEqual({ run: 'offer.write' });
    expect(overlayRoute(offer, key('j'), 'progress')).toBe('swallow');
  });
});

describe('quit and the report on start', () => {
  const stale = { resume: { stale: true } as ResumeStatus };

  it('q offers to write a stale letter, unless read-only or busy', () => {
    const on = { resumeOnQuit: true };
    expect(planQuit(state(stale), on)).toMatchObject({ recovery: { quitOffer: true } });
    expect(planQuit(state(stale, { readonly: true }), on)).toEqual({ quit: true });
    expect(planQuit(state(stale, { busy: 'x' }), on)).toEqual({ quit: true });
    expect(planQuit(state(stale), {})).toEqual({ quit: true });
  });

  it('a report that arrives after the first key does not cover the screen', () => {
    const r = report([]);
    expect(reportArrived(state({}), r, true)).toEqual({ change: { recovery: { ...initialRecovery(), recover: { report: r, offset: 0 } } } });
    expect(reportArrived(state({ keyed: true }), r, true)).toEqual({
      say: 'the last session was interrupted: :recover shows the recover report',
      tone: 'warn',
    });
    expect(reportArrived(state({ keyed: true }), r, false)).toMatchObject({ change: { recovery: { recover: { report: r } } } });
  });
});
