import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import type { ModelReply } from '../../../src/demo/model-server.js';
import { claudeWorkspace, finished, writeReply, type ClaudeWs, type ClaudeWsOptions } from '../../helpers/claude.js';

// Each fault of issue 11 item 3, produced by the scripted model server and read by the real
// Claude Code CLI, ends in the class its stream's facts imply, with that class's cap.

const opened: { s: Supervisor; ws: ClaudeWs }[] = [];
afterEach(async () => {
  for (const { s, ws } of opened.splice(0)) {
    await s.close({ cancel: true });
    await ws.server.close();
  }
});

const start = async (ws: ClaudeWs): Promise<Supervisor> => {
  const s = await openSupervisor({ root: ws.root, config: await loadConfig(ws.root), rand: () => 0.5 });
  opened.push({ s, ws });
  return s;
};

type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const all = async <T extends JournalEvent['type']>(root: string, type: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === type);
const classes = async (root: string) => (await all(root, 'exit')).map((e) => e.class);

const apiError = (status: number, type: string, message: string, retryAfterS?: number): ModelReply => ({ kind: 'error', status, type, message, ...(retryAfterS !== undefined ? { retryAfterS } : {}) });

const run = async (script: (root: string) => Parameters<typeof claudeWorkspace>[0] extends (r: string) => infer S ? S : never, o: ClaudeWsOptions = {}) => {
  const ws = await claudeWorkspace(script, o);
  const s = await start(ws);
  const r = await s.launch('ch01', 'research');
  return { ws, s, r };
};

describe('claude-code faults, real CLI', () => {
  it('429 is RATE_LIMITED; the retry waits what the stream said (retry_delay_ms), then succeeds', async () => {
    // The CLI's one own retry sees retry-after: 1 and reports retry_delay_ms in api_retry.
    const { ws, r } = await run((root) => [apiError(429, 'rate_limit_error', 'rate limited', 1), apiError(429, 'rate_limit_error', 'rate limited', 1), writeReply(root, 'ch01', 'research'), finished], { retries: 1 });
    expect(r.outcome).toBe('done');
    expect(await classes(ws.root)).toEqual(['RATE_LIMITED', 'SUCCESS']);
    const retry = (await all(ws.root, 'retry_scheduled'))[0]!;
    // backoff_base is 20 ms: the one-second wait is the stream's, not the backoff's.
    expect(retry.delayMs).toBeGreaterThanOrEqual(1000);
    expect((await all(ws.root, 'agent_facts')).find((f) => f.apiRetries > 0)?.apiRetries).toBe(1);
  });

  it('529 is OVERLOADED and retried', async () => {
    const { ws, r } = await run((root) => [apiError(529, 'overloaded_error', 'Overloaded'), writeReply(root, 'ch01', 'research'), finished]);
    expect(r.outcome).toBe('done');
    expect(await classes(ws.root)).toEqual(['OVERLOADED', 'SUCCESS']);
  });

  it('401 is PERMISSION and escalates at once (retrying unchanged gives the same result)', async () => {
    const { ws, r } = await run(() => [apiError(401, 'authentication_error', 'invalid x-api-key')]);
    expect(r.outcome).toBe('escalated');
    expect(await classes(ws.root)).toEqual(['PERMISSION']);
    expect(ws.server.requests).toHaveLength(1);
  });

  it('"prompt is too long" is CONTEXT_EXHAUSTED', async () => {
    const { ws } = await run(() => [apiError(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum')], { limits: ['caps: { CONTEXT_EXHAUSTED: 0 }'] });
    expect(await classes(ws.root)).toEqual(['CONTEXT_EXHAUSTED']);
  });

  it('a permission denial in the result, exit 0 and no marker, is PERMISSION', async () => {
    const { ws, r } = await run(() => [{ kind: 'tool', name: 'Bash', input: { command: 'echo hi > x.txt' } }, finished], { permissionMode: 'default' });
    expect(r.outcome).toBe('escalated');
    expect(await classes(ws.root)).toEqual(['PERMISSION']);
    expect(existsSync(join(ws.root, 'x.txt'))).toBe(false);
  });

  it('is_error false without the marker is VERIFICATION_FAILED', async () => {
    const { ws } = await run(() => [finished], { limits: ['caps: { VERIFICATION_FAILED: 0 }'] });
    expect(await classes(ws.root)).toEqual(['VERIFICATION_FAILED']);
  });
});

// The idle timeout also covers the CLI's own start (silent until its init line): 10 s leaves a
// loaded machine room to start it, while the stall itself is silence without end.
describe('claude-code stalls: watchdog, then continue by resume', () => {
  for (const during of ['text', 'tool_args'] as const) {
    it(`a stream silent mid-${during === 'text' ? 'text' : 'tool-arguments'} is STALLED, then the session is resumed to ✅`, async () => {
      const stall: ModelReply = { kind: 'stall', during, text: 'I will now write the research notes for chapter one, section by section.', name: 'Write', input: { file_path: 'x', content: 'y'.repeat(300) } };
      const { ws, r } = await run((root) => [stall, writeReply(root, 'ch01', 'research'), finished], { idle: '10s', onInterrupt: 'continue' });
      expect(r.outcome).toBe('done');
      expect(await classes(ws.root)).toEqual(['STALLED', 'SUCCESS']);
      const launches = await all(ws.root, 'launch');
      const first = (await all(ws.root, 'agent_facts')).find((f) => f.runId === launches[0]!.runId && f.sessionId)!;
      expect(launches[0]!.argv).not.toContain('--resume');
      const resumed = launches[1]!.argv;
      expect(resumed[resumed.indexOf('--resume') + 1]).toBe(first.sessionId);
      expect(resumed.at(-1)).toContain('research/ch01-research.md');
      const cont = await all(ws.root, 'continue');
      expect(cont).toMatchObject([{ unit: 'ch01', step: 'research', sessionId: first.sessionId, halfProduct: 'research/ch01-research.md', by: 'policy' }]);
      // The resumed conversation carries the first prompt: the session went on, it did not restart.
      expect(ws.server.requests[1]!.allText).toContain('Write the file');
      expect(ws.server.requests[1]!.lastUserText).toContain('was interrupted');
      expect(readFileSync(join(ws.root, 'research/ch01-research.md'), 'utf8')).toContain('<!-- RESEARCH_COMPLETE -->');
    }, 90_000);
  }
});
