import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';
import { loadConfig } from '../../../src/pipeline/config/config.js';
import { ConfigError } from '../../../src/pipeline/config/error.js';
import { readJournal, type JournalEvent } from '../../../src/run/journal/journal.js';
import { openSupervisor, type Supervisor } from '../../../src/run/supervisor/supervisor.js';
import type { ModelReply } from '../../../src/demo/model-server.js';
import { claudeWorkspace, finished, writeReply, type ClaudeWs } from '../../helpers/claude.js';

// Issue 17 item 8: each class has the recovery the source documents give it. A context that
// ran out is compacted (a fresh attempt handed the partial and the error), not repeated with
// the identical argv until it is called CIRCULAR_FIX; and continue-from-partial (C,
// on_interrupt: continue) works for command agents through {partial} / {backup} / {last_error}.

const open: Supervisor[] = [];
const servers: ClaudeWs[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close({ cancel: true });
  for (const w of servers.splice(0)) await w.server.close();
});
type Ev<T extends JournalEvent['type']> = Extract<JournalEvent, { type: T }>;
const events = async <T extends JournalEvent['type']>(root: string, type: T): Promise<Ev<T>[]> => (await readJournal(root)).events.filter((e): e is Ev<T> => e.type === type);
const start = async (root: string): Promise<Supervisor> => {
  const s = await openSupervisor({ root, config: await loadConfig(root), rand: () => 0.5 });
  open.push(s);
  return s;
};

const HALF = '# ch01 research\n\n## 1. Sources\n\nfirst half, paid for\n';

/** An agent that writes half its file and runs out of context, then completes what it is handed. */
const commandWs = (command: string, extra: string[] = []): string => {
  const root = tempDir();
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries([]),
    'agent.mjs': [
      "import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';",
      "import { dirname } from 'node:path';",
      "const [attempt, output, partial, backup, lastError] = process.argv.slice(2);",
      `appendFileSync(${JSON.stringify(join(root, 'argv.jsonl'))}, JSON.stringify({ attempt, partial, backup, lastError }) + '\\n');`,
      "if (attempt === '1') { mkdirSync(dirname(output), { recursive: true }); writeFileSync(output, " + JSON.stringify(HALF) + "); console.error('Error: maximum context length exceeded (token limit)'); process.exit(2); }",
      "if (partial) appendFileSync(partial, '\\n## 2. Notes\\n\\nsecond half\\n\\n<!-- RESEARCH_COMPLETE -->\\n');",
    ].join('\n'),
    'checkroom.yaml': [
      'preset: book',
      'units: { list: [ch01] }',
      'agents:',
      `  researcher: { command: ${command}, idle_timeout: 10s${extra.length ? `, ${extra.join(', ')}` : ''} }`,
      'limits: { backoff_base: 10ms, backoff_max: 20ms }',
      'breaker: { threshold: 100 }',
      '',
    ].join('\n'),
  });
  return root;
};
const calls = (root: string) => readFileSync(join(root, 'argv.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);

describe('CONTEXT_EXHAUSTED compacts instead of repeating (command agent)', () => {
  it('the second attempt is handed the partial in place, a copy and the error; the first half survives', async () => {
    const root = commandWs("[node, agent.mjs, '{attempt}', '{output}', '{partial}', '{backup}', '{last_error}']");
    const s = await start(root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    const out = join(root, 'research/ch01-research.md');
    const [first, second] = calls(root);
    expect(first).toEqual({ attempt: '1', partial: '', backup: '', lastError: '' });
    expect(second!.partial).toBe(out);
    expect(second!.lastError).toBe('Error: maximum context length exceeded (token limit) (exit 2)');
    expect(readFileSync(second!.backup!, 'utf8')).toBe(HALF);
    expect(readFileSync(out, 'utf8')).toBe(`${HALF}\n## 2. Notes\n\nsecond half\n\n<!-- RESEARCH_COMPLETE -->\n`);
    expect((await events(root, 'exit')).map((e) => e.class)).toEqual(['CONTEXT_EXHAUSTED', 'SUCCESS']);
    expect(await events(root, 'continue')).toMatchObject([{ mode: 'handoff', sessionId: null, halfProduct: 'research/ch01-research.md', by: 'policy' }]);
    // No move-aside backup before the hand-off: the half-product was never taken away.
    expect((await events(root, 'decision')).filter((d) => d.kind === 'backup')).toEqual([]);
  });
});

describe('continue-from-partial for command agents', () => {
  it('C (continuable) hands a command agent its partial when its command takes one, and says so when it does not', async () => {
    const root = commandWs("[node, agent.mjs, '{attempt}', '{output}', '{partial}', '{backup}', '{last_error}']");
    writeFiles(root, { 'research/ch01-research.md': HALF });
    const s = await start(root);
    expect(s.continuable('ch01', 'research')).toEqual({ mode: 'handoff', sessionId: null, halfProduct: 'research/ch01-research.md', lastError: '' });
    expect(s.describeCommand('ch01', 'research', { continue: true }).argv).toContain(join(root, 'research/ch01-research.md'));
    const plain = commandWs("[node, agent.mjs, '{attempt}', '{output}']");
    writeFiles(plain, { 'research/ch01-research.md': HALF });
    expect((await start(plain)).continuable('ch01', 'research')).toBeNull();
  });

  it('on_interrupt: continue is accepted for a command that takes {partial}, refused with the fix otherwise', async () => {
    const ok = commandWs("[node, agent.mjs, '{attempt}', '{output}', '{partial}']", ['on_interrupt: continue']);
    await expect(loadConfig(ok)).resolves.toBeTruthy();
    const bad = commandWs("[node, agent.mjs, '{attempt}', '{output}']", ['on_interrupt: continue']);
    const err = await loadConfig(bad).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toContain('put {partial} (the half-product) or {backup} (a copy) in the command');
  });
});

describe('CONTEXT_EXHAUSTED on the real Claude Code CLI', () => {
  it('is retried as a fresh session handed the task and the partial, not the identical argv', async () => {
    const tooLong: ModelReply = { kind: 'error', status: 400, type: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const ws = await claudeWorkspace((root) => [tooLong, writeReply(root, 'ch01', 'research'), finished]);
    servers.push(ws);
    writeFiles(ws.root, { 'research/ch01-research.md': HALF });
    const s = await start(ws.root);
    const r = await s.launch('ch01', 'research');
    expect(r.outcome).toBe('done');
    expect((await events(ws.root, 'exit')).map((e) => e.class)).toEqual(['CONTEXT_EXHAUSTED', 'SUCCESS']);
    const [a1, a2] = (await events(ws.root, 'launch')).map((l) => l.argv);
    expect(a2).not.toEqual(a1);
    expect(a2).not.toContain('--resume');
    const prompt = a2!.at(-1)!;
    expect(prompt).toContain('Write the file');
    expect(prompt).toMatch(/prompt is too long/i);
    expect(prompt).toContain(`If the file ${join(ws.root, 'research/ch01-research.md')} exists, it is its half-product`);
    // The partial was copied before the fresh session could rewrite it.
    expect(readdirSync(join(ws.root, 'research')).some((f) => f.startsWith('ch01-research.md.bak'))).toBe(true);
  });
});
