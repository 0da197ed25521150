import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import { failureMessage, type FailureContext } from '../../../src/run/attempt/failure-message.js';
import { emptyFacts } from '../../../src/run/adapters/types.js';
import type { ProcessOutcome } from '../../../src/run/types.js';

// Issue 17 item 8: {last_error} and Health's "last error" are the classified error, never
// progress chatter ("starting", "finished (forgot marker)") nor a raw JSON stream line.

const outcome = (o: Partial<ProcessOutcome>): ProcessOutcome => ({
  runId: 'r',
  exitCode: 1,
  signal: null,
  spawnError: null,
  stalled: false,
  timedOut: false,
  cancelled: false,
  tail: [],
  startedAt: 0,
  endedAt: 1,
  bytesOut: 0,
  ...o,
});
const ctx: FailureContext = { facts: null, outputRel: 'drafts/ch01-draft.md', marker: 'DRAFT_COMPLETE', program: 'agent', structured: false };

describe('failureMessage', () => {
  it('an exit 0 without the marker is the verifier complaint, not the last output line', () => {
    const m = failureMessage('VERIFICATION_FAILED', outcome({ exitCode: 0, tail: ['starting', 'finished (forgot marker)'] }), ctx);
    expect(m).toBe('exited 0 but the last line of drafts/ch01-draft.md is not <!-- DRAFT_COMPLETE -->');
  });
  it('a failure names the line that showed its class, not the chatter after it', () => {
    const m = failureMessage('RATE_LIMITED', outcome({ tail: ['starting', '429 Too Many Requests from upstream', 'cleaning up', 'bye'] }), ctx);
    expect(m).toBe('429 Too Many Requests from upstream (exit 1)');
    const u = failureMessage('UNKNOWN', outcome({ tail: ['starting', 'Error: the outline has no chapter 7', 'bye'] }), ctx);
    expect(u).toBe('Error: the outline has no chapter 7 (exit 1)');
  });
  it('the watchdog, the timeout, a spawn failure and a signal say so', () => {
    expect(failureMessage('STALLED', outcome({ stalled: true, tail: ['starting'] }), ctx)).toMatch(/^stopped by the idle watchdog/);
    expect(failureMessage('STALLED', outcome({ timedOut: true }), ctx)).toBe('stopped at the overall timeout');
    expect(failureMessage('TOOL_NOT_FOUND', outcome({ spawnError: 'ENOENT', exitCode: null }), ctx)).toBe('cannot start agent: ENOENT');
    expect(failureMessage('UNKNOWN', outcome({ exitCode: null, signal: 'SIGSEGV' }), ctx)).toBe('killed by SIGSEGV with no output');
  });
  it("a stream agent's raw JSON lines are never the message; the API's own words are", () => {
    const facts = { ...emptyFacts(), result: { isError: true, apiErrorStatus: 400, terminalReason: 'prompt_too_long', text: 'prompt is too long: 250000 tokens', permissionDenials: 0, denied: [] } };
    const m = failureMessage('CONTEXT_EXHAUSTED', outcome({ tail: ['{"type":"result","is_error":true}'] }), { ...ctx, facts, structured: true });
    expect(m).toBe('API error 400, prompt_too_long: prompt is too long: 250000 tokens');
  });
  it('escapes what it quotes', () => {
    expect(failureMessage('UNKNOWN', outcome({ tail: ['Error: \u001b]52;c;cHduZWQ=\u0007 gone'] }), ctx)).not.toMatch(/[\u001b\u0007]/);
  });
});

const open: Supervisor[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
});
type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;

describe('{last_error} on real processes', () => {
  it('the second attempt gets the error line, and a forgotten marker gets the verifier complaint', async () => {
    const root = tempDir();
    const dump = join(root, 'argv.jsonl');
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'agent.mjs': [
        "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';", "import { dirname } from 'node:path';",
        `appendFileSync(${JSON.stringify(dump)}, JSON.stringify(process.argv.slice(2)) + '\\n');`,
        "console.log('starting');",
        "if (process.argv[2] === '1') { console.error('Error: the outline has no chapter 7'); console.log('cleaning up'); process.exit(3); }",
        "mkdirSync(dirname(process.argv[4]), { recursive: true }); writeFileSync(process.argv[4], '# ch01\\n\\nnotes\\n');",
        "console.log('finished (forgot marker)');",
      ].join('\n'),
      'checkroom.yaml': [
        'preset: book',
        'units: { list: [ch01] }',
        'agents:',
        "  researcher: { command: [node, agent.mjs, '{attempt}', '{last_error}', '{output}'], idle_timeout: 10s }",
        'limits: { backoff_base: 10ms, backoff_max: 20ms, caps: { VERIFICATION_FAILED: 0 } }',
        'breaker: { threshold: 100 }',
        '',
      ].join('\n'),
    });
    const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
    open.push(s);
    await s.launch('ch01', 'research');
    const calls = readFileSync(dump, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(calls.map((c) => c[1])).toEqual(['', 'Error: the outline has no chapter 7 (exit 3)']);
    const exits = (await readJournal(root)).events.filter((e): e is Ev<'exit'> => e.type === 'exit');
    expect(exits.map((e) => e.class)).toEqual(['UNKNOWN', 'VERIFICATION_FAILED']);
    expect(exits[1]!.error).toBe('exited 0 but the last line of research/ch01-research.md is not <!-- RESEARCH_COMPLETE -->');
    expect(s.snapshot().ledger.cells['ch01/research']!.lastError).toBe(exits[1]!.error);
  });
});
