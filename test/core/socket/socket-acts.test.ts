import { afterEach, describe, expect, it } from 'vitest';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { startControlServer } from '../../../src/socket/server.js';
import { askAct } from '../../../src/socket/client.js';
import type { ActPort, RedoAsk, RedriveAsk } from '../../../src/socket/acts.js';
import { statusText } from '../../helpers/status-text.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';

// The server's side of `redrive` and `redo` (src/socket/acts.ts), over a real socket with a port
// that records what it is asked: only a checked body reaches it, its answer comes back whole
// (a long message bounded, the document intact), its refusal is the answer, and a room that
// was reached but did not answer is final for the asker: never applied behind its back.

const cleanup: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function serve(act: ActPort | undefined) {
  const root = copyDemo();
  const env = { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') };
  const live = await createLiveWorkspace(root, { watch: false });
  const server = await startControlServer(root, { live, pointer: false, env, requestMs: 2000, ...(act ? { act } : {}) }, statusText());
  if (!server) throw new Error('another instance serves');
  cleanup.push(
    () => live.close(),
    () => server.close(),
  );
  return { root, env };
}

const REDO: RedoAsk = { unit: 'ch03', step: 'draft', agent: null, prompt: null, by: 'ann via checkroom redo' };

describe('the control socket applies redrive and redo through the port the room gives it', () => {
  it('the checked ask reaches the port; its words and document come back, a long message bounded', async () => {
    const asked: (RedriveAsk | RedoAsk)[] = [];
    const cells = Array.from({ length: 3000 }, (_, i) => ({ unit: `u${i}`, step: 'draft', why: 'x'.repeat(40) }));
    const { root, env } = await serve({
      redrive: async (a) => (asked.push(a), { message: `\u001b[2J${'long '.repeat(2000)}`, doc: { done: true, cells } }),
      redo: async (a) => (asked.push(a), { message: 'redo from ch03 draft: 4 backed up', doc: { applied: { id: 'r' } } }),
    });
    const r = await askAct(root, 'redrive', { redrive: { kind: 'apply', text: 'class=INFRA', by: 'ann', cells: ['smuggled'] } }, { env });
    expect(asked).toEqual([{ kind: 'apply', text: 'class=INFRA', by: 'ann' }]);
    if (!r.ok) throw new Error(r.why);
    expect(r.pid).toBe(process.pid);
    expect(r.message.length).toBeLessThanOrEqual(600);
    expect(r.message.startsWith('\u001b[2Jlong long')).toBe(true);
    expect(r.doc).toEqual({ done: true, cells });
    expect(await askAct(root, 'redo', { redo: REDO }, { env })).toEqual({ ok: true, pid: process.pid, message: 'redo from ch03 draft: 4 backed up', doc: { applied: { id: 'r' } } });
    expect(asked).toHaveLength(2);
  });

  it("the port's refusal is the answer, final; a body that does not check never reaches it", async () => {
    let calls = 0;
    const { root, env } = await serve({
      redrive: async () => (calls++, Promise.reject(new Error('read-only: cannot redrive; another checkroom drives this workspace'))),
      redo: async () => (calls++, { message: '', doc: {} }),
    });
    expect(await askAct(root, 'redrive', { redrive: { kind: 'drain', by: 'ann' } }, { env })).toEqual({ ok: false, final: true, why: 'the control room refused: read-only: cannot redrive; another checkroom drives this workspace' });
    const bad = await askAct(root, 'redo', { redo: { ...REDO, unit: 7 } }, { env });
    expect(bad).toMatchObject({ ok: false, final: true, why: expect.stringMatching(/^the control room refused: bad request/) });
    expect(calls).toBe(1);
  });

  it('no port: refused; no room at all: not final (the command applies it itself); a room that never answers: final', async () => {
    const none = await serve(undefined);
    expect(await askAct(none.root, 'redo', { redo: REDO }, { env: none.env })).toEqual({ ok: false, final: true, why: 'the control room refused: this checkroom runs no agents: it applies no redo' });
    expect(await askAct(copyDemo(), 'redo', { redo: REDO }, { env: { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') } })).toMatchObject({ ok: false, final: false });
    const silent = await serve({ redrive: () => new Promise(() => undefined), redo: () => new Promise(() => undefined) });
    expect(await askAct(silent.root, 'redo', { redo: REDO }, { env: silent.env, timeoutMs: 300 })).toMatchObject({ ok: false, final: true, why: expect.stringMatching(/did not answer within 300 ms/) });
  });
});
