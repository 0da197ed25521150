import { describe, expect, it } from 'vitest';
import { refuseUnlessDriver } from '../../../src/ui/agents/redrive-remote.js';
import { remoteRedo } from '../../../src/ui/triage/redo-remote.js';
import { remoteActs } from '../../../src/ui/store/remote.js';
import type { SupervisorPort } from '../../../src/ui/agents/types.js';
import type { RedoPreview } from '../../../src/redo/types.js';
import type { AppState } from '../../../src/ui/store/types.js';

// The room's side of `redrive` and `redo` through the socket (docs/redrive.md, docs/redo.md):
// who may apply them (the driver only, asked before any file moves), and what the operator at
// the screen is told. test/e2e/cli/act-socket.test.ts drives the same through real sockets.

const LEDGER = { liveRuns: [{ unit: 'ch03', step: 'r1', runId: 'run-1' }] };
const snap = (role: 'driver' | 'readonly') => ({ role, readonlyReason: role === 'readonly' ? 'another checkroom (pid 42) drives this workspace' : null, ledger: LEDGER });
const supOf = (role: 'driver' | 'readonly') => ({ snapshot: () => snap(role) }) as unknown as SupervisorPort;

const preview: RedoPreview = {
  origin: { unit: 'ch03', step: 'draft' },
  override: null,
  cells: [{ unit: 'ch03', step: 'draft', path: 'drafts/ch03-draft.md', shared: false, why: 'origin' as never, claim: null, file: { path: 'drafts/ch03-draft.md', bytes: 10, marker: true, shared: false } }],
  files: [{ path: 'drafts/ch03-draft.md', bytes: 10, marker: true, shared: false }],
  bytes: 10,
  refusal: null,
};

describe('only the driver applies a remote act', () => {
  it('a read-only instance refuses in the supervisor\'s words; the driver goes on', () => {
    expect(() => refuseUnlessDriver(supOf('readonly'), 'redrive')).toThrow('read-only: cannot redrive; another checkroom (pid 42) drives this workspace');
    expect(() => refuseUnlessDriver(supOf('driver'), 'redrive')).not.toThrow();
  });

  it('a redo on a read-only instance is refused before anything is gathered or moved', async () => {
    let asked = 0;
    const said: string[] = [];
    const redo = remoteRedo({ sup: supOf('readonly'), redoNow: async () => (asked++, { preview, applied: { id: 'r', moves: [] } }), sayClean: (t) => void said.push(t) });
    await expect(redo({ unit: 'ch03', step: 'draft', agent: null, prompt: null, by: 'ann via checkroom redo' })).rejects.toThrow(/^read-only: cannot redo; /);
    expect(asked).toBe(0);
  });

  it('a redo on the driver: the fork and the supervisor\'s ledger passed on, the room told who asked, the asker the words and the --json document', async () => {
    const reqs: unknown[] = [];
    const said: [string, string | undefined][] = [];
    const redo = remoteRedo({
      sup: supOf('driver'),
      redoNow: async (req, ledger) => (reqs.push(req, ledger), { preview, applied: { id: 'redo:1', moves: [{ path: 'drafts/ch03-draft.md', backup: 'drafts/ch03-draft.md.bak.1', copy: false }] } }),
      sayClean: (t, tone) => void said.push([t, tone]),
    });
    const a = await redo({ unit: 'ch03', step: 'draft', agent: 'writer-b', prompt: null, by: 'ann via checkroom redo' });
    // The supervisor's ledger, not the store's last flush: a run launched a moment ago refuses the redo.
    expect(reqs).toEqual([{ cell: { unit: 'ch03', step: 'draft' }, override: { agent: 'writer-b' } }, LEDGER]);
    expect(a.message).toBe('redo from ch03 draft: 1 backed up, 1 queued in the Plan view (u undoes it)');
    expect(a.doc).toMatchObject({ origin: { unit: 'ch03', step: 'draft' }, refusal: null, applied: { id: 'redo:1', moves: [{ backup: 'drafts/ch03-draft.md.bak.1' }] } });
    expect(said).toEqual([['ann via checkroom redo: redo from ch03 draft: 1 backed up, 1 queued in the Plan view (u undoes it)', 'ok']]);
  });
});

describe('the message line says a refused remote act too', () => {
  it('who asked and why not, then the refusal goes back to the asker', async () => {
    const said: [string, string | undefined][] = [];
    const port = remoteActs({
      sup: supOf('readonly'),
      config: {} as never,
      get: () => ({}) as AppState,
      track: () => undefined,
      sayClean: (t, tone) => void said.push([t, tone]),
      redoNow: async () => ({ preview, applied: { id: 'r', moves: [] } }),
    });
    await expect(port.redrive({ kind: 'drain', by: 'bob via checkroom redrive' })).rejects.toThrow('read-only: cannot redrive');
    await expect(port.redo({ unit: 'a', step: 'b', agent: null, prompt: null, by: 'bob via checkroom redo' })).rejects.toThrow('read-only: cannot redo');
    expect(said).toEqual([
      ['bob via checkroom redrive: not done: read-only: cannot redrive; another checkroom (pid 42) drives this workspace', 'warn'],
      ['bob via checkroom redo: not done: read-only: cannot redo; another checkroom (pid 42) drives this workspace', 'warn'],
    ]);
  });
});
