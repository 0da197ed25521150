import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { watchJob, type JobLook, type JobProbe } from '../../../../src/run/executors/job-handle.js';
import type { ExecutorSpec } from '../../../../src/run/executors/types.js';
import type { AgentDef } from '../../../../src/pipeline/config/types.js';
import { tempDir } from '../../../helpers/workspace.js';

// Issue 9 item 3: a cluster job's handle keeps its log's lines raw and formats them when read
// (run-output.ts), as the local process group does; every read stays sanitized, and every
// line still reaches the subscriber (the supervisor reads each through the agent's adapter).
// The scheduler is a scripted probe; the log is a real file the "job" appends to.

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

const until = async (what: () => boolean, ms = 10_000): Promise<void> => {
  for (let waited = 0; !what(); waited += 10) {
    if (waited > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
};

const scripted = (): JobProbe & { state: JobLook } => {
  const probe = {
    executor: 'slurm',
    id: '42',
    state: { kind: 'running' } as JobLook,
    look: async () => probe.state,
    stop: async () => true,
    close: async () => undefined,
  };
  return probe;
};

const specFor = (dir: string, ringLines?: number): ExecutorSpec => ({
  runId: 'r1',
  argv: ['agent'],
  cwd: dir,
  env: {},
  logPath: join(dir, 'r1.log'),
  outputPath: null,
  idleTimeoutMs: 600_000,
  timeoutMs: 600_000,
  graceMs: 100,
  ringLines,
  root: dir,
  unit: 'ch01',
  step: 'write',
  attempt: 1,
  agent: { name: 'writer' } as AgentDef,
  proven: () => false,
});

describe('watchJob: a job log read lazily', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('escape sequences in the log are sanitized on every read: subscriber, lines(), the unfinished line, the tail', async () => {
    dir = tempDir('checkroom-job-');
    const spec = specFor(dir);
    writeFileSync(spec.logPath, '');
    const probe = scripted();
    const h = watchJob(spec, probe, { pollMs: 20, from: 0 });
    const seen: string[] = [];
    h.onLine((l) => seen.push(l));
    // Title, clipboard, clear screen, CR overwrite and a bell, colours; then a line without newline.
    appendFileSync(spec.logPath, '\u001b]0;pwned\u0007t\r\n\u001b]52;c;eA==\u0007\n\u001b[2J\u001b[Hx\rX\b\n');
    for (let i = 1; i <= 8; i++) appendFileSync(spec.logPath, `\u001b[31mred ${i}\u001b[0m\n`);
    appendFileSync(spec.logPath, 'pending \u001b[5m');
    let during: string[] = [];
    await until(() => (during = h.lines()).some((l) => l.startsWith('pending')));
    expect(during.at(-1)).toBe('pending \\e[5m');
    appendFileSync(spec.logPath, '\u001b]0;end\u0007');
    probe.state = { kind: 'ended', end: { how: 'exit' }, exitCode: 0 };
    const out = await h.result;
    const reads = { seen, during, after: h.lines(), tail: out.tail };
    for (const [name, lines] of Object.entries(reads)) {
      expect(lines.length, name).toBeGreaterThan(0);
      for (const l of lines) expect(UNSAFE.test(l), `${name}: ${JSON.stringify(l)}`).toBe(false);
    }
    expect(seen.slice(0, 3)).toEqual(['\\e]0;pwned\\at', '\\e]52;c;eA==\\a', '\\e[2J\\e[Hx\\rX\\b']);
    expect(seen).toContain('\\e[31mred 8\\e[0m');
    // The unfinished line becomes a line at the end, for the subscriber and the tail alike.
    expect(seen.at(-1)).toBe('pending \\e[5m\\e]0;end\\a');
    expect(out.tail.at(-1)).toBe('pending \\e[5m\\e]0;end\\a');
    expect(h.lines()).toEqual(out.tail);
    expect(out.bytesOut).toBeGreaterThan(0);
  });

  it('every line of one long read reaches the subscriber in order; the ring keeps the last', async () => {
    dir = tempDir('checkroom-job-');
    const spec = specFor(dir, 10);
    writeFileSync(spec.logPath, '');
    const probe = scripted();
    const h = watchJob(spec, probe, { pollMs: 20, from: 0 });
    const seen: string[] = [];
    h.onLine((l) => seen.push(l));
    // Far more than twice the ring in one poll: the local group would skip most of a burst
    // like this; a job's subscriber must not (its session id may be among them).
    appendFileSync(spec.logPath, Array.from({ length: 100 }, (_, i) => `line ${i} \u001b[1m\n`).join(''));
    await until(() => seen.length >= 100);
    probe.state = { kind: 'ended', end: { how: 'exit' }, exitCode: 0 };
    const out = await h.result;
    expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => `line ${i} \\e[1m`));
    expect(h.lines()).toEqual(seen.slice(-10));
    expect(out.tail).toEqual(seen.slice(-10));
  });
});
