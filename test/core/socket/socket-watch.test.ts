import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createLiveWorkspace } from '../../../src/live/live-workspace.js';
import { statusText } from '../../helpers/status-text.js';
import { startControlServer } from '../../../src/socket/server.js';
import { cellChanges, fromSupervisor, statusesOf } from '../../../src/socket/events.js';
import type { SupervisorEvent } from '../../../src/run/supervisor/types.js';
import { loadWorkspace } from '../../../src/workspace.js';
import { copyDemo, tempDir } from '../../helpers/workspace.js';

// `checkroom watch --json` (issue 10 item 4): what is streamed, and a slow consumer: events
// past the per-client bound are dropped and counted with one `lagged` event, never buffered
// without end.

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});
const AT = '2026-01-02T03:04:05.000Z';

describe('watch events', () => {
  it('cell changes name unit, step, from and to; a cell gone says to: null', async () => {
    const dir = copyDemo();
    const before = await loadWorkspace(dir);
    const prev = statusesOf(before);
    const after = {
      ...before,
      cells: before.cells
        .filter((c) => !(c.unit === 'ch01' && c.step === 'research'))
        .map((c) => (c.unit === 'ch02' && c.step === 'panel' ? { ...c, status: 'done' as const } : c)),
    };
    expect(cellChanges(prev, after, AT)).toEqual([
      { type: 'cell', at: AT, unit: 'ch02', step: 'panel', from: 'partial', to: 'done' },
      { type: 'cell', at: AT, unit: 'ch01', step: 'research', from: 'done', to: null },
    ]);
  });

  it('maps runs, escalations, breakers and autopilot; output lines are not streamed', () => {
    const failed: SupervisorEvent = {
      type: 'failed',
      unit: 'ch07',
      step: 'research',
      class: 'VERIFICATION_FAILED',
      escalated: true,
      reason: 'no marker',
      logPath: null,
      message: 'ch07 research: ⚠️',
    };
    expect(fromSupervisor(failed, AT).map((e) => e.type)).toEqual(['run-ended', 'escalation']);
    expect(fromSupervisor({ type: 'launch', unit: 'ch03', step: 'r2', runId: 'r1', attempt: 2, agent: 'reviewer', logPath: 'x', message: '' }, AT)).toEqual([
      { type: 'run-started', at: AT, unit: 'ch03', step: 'r2', runId: 'r1', attempt: 2, agent: 'reviewer' },
    ]);
    expect(fromSupervisor({ type: 'breaker', agent: 'reviewer', state: 'closed', message: '' }, AT)).toEqual([{ type: 'breaker', at: AT, agent: 'reviewer', state: 'closed', deadline: null }]);
    // Issue 18: an open breaker's event carries its deadline, the one every countdown is drawn from.
    expect(fromSupervisor({ type: 'breaker', agent: 'reviewer', state: 'open', deadline: Date.UTC(2026, 0, 1, 0, 1), message: '' }, AT)).toEqual([
      { type: 'breaker', at: AT, agent: 'reviewer', state: 'open', deadline: '2026-01-01T00:01:00.000Z' },
    ]);
    expect(fromSupervisor({ type: 'autopilot', on: true, paused: false, reason: 'operator', message: '' }, AT)[0]).toMatchObject({
      type: 'autopilot',
      on: true,
    });
    expect(fromSupervisor({ type: 'output', unit: 'a', step: 'b', runId: 'r', line: 'x', message: 'x' }, AT)).toEqual([]);
  });

  it('a client that does not read gets a counted lagged event, not an unbounded buffer', async () => {
    const dir = copyDemo();
    const env = { ...process.env, XDG_RUNTIME_DIR: tempDir('checkroom-xdg-') };
    const live = await createLiveWorkspace(dir, { watch: false });
    let emit: (e: SupervisorEvent) => void = () => undefined;
    const sup = { subscribe: (fn: (e: SupervisorEvent) => void) => ((emit = fn), () => undefined) };
    const server = (await startControlServer(dir, { live, sup, pointer: false, env }, statusText()))!;
    cleanup.push(
      () => live.close(),
      () => server.close(),
    );
    const token = JSON.parse(readFileSync(server.paths.token, 'utf8')).token as string;
    const sock = connect(server.paths.socket, () => sock.write(JSON.stringify({ token, op: 'watch' }) + '\n'));
    let text = '';
    sock.on('data', (c) => (text += c));
    await new Promise<void>((r) => {
      const t = setInterval(() => text.includes('"hello"') && (clearInterval(t), r()), 20);
    });
    sock.pause(); // a consumer that stops reading
    const N = 20_000;
    for (let i = 0; i < N; i++) emit({ type: 'breaker', agent: `agent-${i}`, state: 'open', message: '' });
    sock.resume();
    // Bounded wait: every event delivered (nothing dropped) ends the wait too, and fails below.
    await new Promise<void>((r) => {
      const t = setInterval(() => (text.includes('"lagged"') || text.includes(`agent-${N - 1}"`)) && (clearInterval(t), r()), 20);
    });
    const events = text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; dropped?: number; agent?: string });
    const breakers = events.filter((e) => e.type === 'breaker');
    const lagged = events.find((e) => e.type === 'lagged');
    expect(lagged?.dropped).toBeGreaterThan(0);
    expect(breakers.length + lagged!.dropped!).toBe(N);
    // What was kept is the head of the stream, in order.
    expect(breakers.slice(0, 3).map((e) => e.agent)).toEqual(['agent-0', 'agent-1', 'agent-2']);
  });
});
