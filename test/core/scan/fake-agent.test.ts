import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkMarker } from '../../../src/scan/marker.js';
import { startProcess } from '../../../src/run/process/process.js';

// The demo's agent, run for real at high speed, one behaviour per fault mode.

const AGENT = resolve('demo-workspace/agents/fake-agent.mjs');
let ws: string;
let faults: string;

beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'checkroom-fake-'));
  faults = join(ws, 'faults.json');
  writeFileSync(
    faults,
    JSON.stringify({
      'ch05/r2': 'rate_limit_twice',
      'ch06/draft': 'hang',
      'ch07/research': 'no_marker',
      'ch08/research': 'permission',
      'ch09/research': 'same_error',
      'ch10/draft': 'overloaded',
      'ch11/draft': 'context',
      '*/*': 'ok',
    }),
  );
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const agentArgs = (unit: string, step: string, marker: string, attempt: number, output = join(ws, `${step}-${unit}.md`)): string[] => [
  AGENT, '--unit', unit, '--step', step, '--output', output, '--marker', marker, '--attempt', String(attempt), '--workspace', ws, '--faults', faults,
];

const run = (unit: string, step: string, marker: string, attempt = 1, output?: string) =>
  execa(process.execPath, agentArgs(unit, step, marker, attempt, output), { reject: false, env: { CHECKROOM_FAKE_SPEED: '100' } });

const MARKERS: Record<string, string> = {
  research: 'RESEARCH_COMPLETE',
  draft: 'DRAFT_COMPLETE',
  r1: 'R1_CODE_REVIEW_COMPLETE',
  r2: 'R2_CONSISTENCY_REVIEW_COMPLETE',
  r3: 'R3_CONTENT_REVIEW_COMPLETE',
  review: 'REVIEW_COMPLETE',
  panel: 'READER_PANEL_COMPLETE',
  final: 'CHAPTER_FINAL',
  html: 'HTML_COMPLETE',
};

describe('fake agent, success', () => {
  it('writes a chapter draft with headings and closed code fences, the marker last', async () => {
    const r = await run('ch03', 'draft', 'DRAFT_COMPLETE');
    expect(r.exitCode).toBe(0);
    const text = readFileSync(join(ws, 'draft-ch03.md'), 'utf8');
    expect(text.endsWith('<!-- DRAFT_COMPLETE -->\n')).toBe(true);
    expect(checkMarker(text, 'DRAFT_COMPLETE').marker).toBe(true);
    expect(text).toMatch(/^# CH03: /);
    expect(text.match(/^## /gm)!.length).toBeGreaterThanOrEqual(5);
    expect(text.match(/^```/gm)!.length % 2).toBe(0);
    expect(text.length).toBeGreaterThan(1000);
    expect(r.stdout).toMatch(/\[writer ch03\] writing section 2\/\d/);
  });

  it.each(Object.entries(MARKERS))('step %s ends with its own marker', async (step, marker) => {
    const r = await run('ch02', step, marker);
    expect(r.exitCode).toBe(0);
    const text = readFileSync(join(ws, `${step}-ch02.md`), 'utf8');
    expect(checkMarker(text, marker).marker).toBe(true);
    expect(text.trimEnd().split('\n').filter((l) => l.includes('<!--'))).toEqual([`<!-- ${marker} -->`]);
  });

  it('writes step-specific content', async () => {
    await run('ch02', 'r1', 'R1_CODE_REVIEW_COMPLETE');
    await run('ch02', 'research', 'RESEARCH_COMPLETE');
    await run('ch02', 'html', 'HTML_COMPLETE');
    expect(readFileSync(join(ws, 'r1-ch02.md'), 'utf8')).toMatch(/^1\. .*\n2\. /m);
    expect(readFileSync(join(ws, 'research-ch02.md'), 'utf8')).toContain('## Sources');
    expect(readFileSync(join(ws, 'html-ch02.md'), 'utf8')).toMatch(/<html[\s\S]*<\/html>\n<!-- HTML_COMPLETE -->\n$/);
  });

  it('memory appends one summary entry, keeps what was there, and does not duplicate on retry', async () => {
    const summaries = join(ws, 'meta', 'chapter-summaries.md');
    mkdirSync(join(ws, 'meta'));
    writeFileSync(summaries, '# Chapter summaries\n\n## ch01 — Processes and Signals\n\nEarlier entry.\n');
    expect((await run('ch03', 'memory', '', 1, summaries)).exitCode).toBe(0);
    expect((await run('ch03', 'memory', '', 2, summaries)).exitCode).toBe(0);
    const text = readFileSync(summaries, 'utf8');
    expect(text.startsWith('# Chapter summaries\n\n## ch01 — Processes and Signals\n\nEarlier entry.\n')).toBe(true);
    expect(text.match(/^## ch03 — .+$/gm)).toHaveLength(1);
    const entry = text.slice(text.indexOf('## ch03'));
    expect(entry.split('\n')[2]!.match(/\. /g)!.length).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('<!--');
  });
});

describe('fake agent, faults', () => {
  it('rate_limit_twice fails attempts 1 and 2 with a 429 and succeeds on attempt 3', async () => {
    for (const attempt of [1, 2]) {
      const r = await run('ch05', 'r2', 'R2_CONSISTENCY_REVIEW_COMPLETE', attempt);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('Error: 429 Too Many Requests — rate limit exceeded, retry after 2s');
    }
    const ok = await run('ch05', 'r2', 'R2_CONSISTENCY_REVIEW_COMPLETE', 3);
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toBe('');
    expect(checkMarker(readFileSync(join(ws, 'r2-ch05.md'), 'utf8'), 'R2_CONSISTENCY_REVIEW_COMPLETE').marker).toBe(true);
  });

  it('no_marker writes everything and exits 0 without the marker', async () => {
    const r = await run('ch07', 'research', 'RESEARCH_COMPLETE');
    expect(r.exitCode).toBe(0);
    const text = readFileSync(join(ws, 'research-ch07.md'), 'utf8');
    expect(text.length).toBeGreaterThan(100);
    expect(text).toContain('## Sources');
    expect(text).not.toContain('RESEARCH_COMPLETE');
  });

  it('permission fails with EACCES on every attempt and writes nothing', async () => {
    for (const attempt of [1, 3]) {
      const r = await run('ch08', 'research', 'RESEARCH_COMPLETE', attempt);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/^Error: EACCES: permission denied, open '\//);
    }
    expect(existsSync(join(ws, 'research-ch08.md'))).toBe(false);
  });

  it('same_error prints the identical TypeError on every attempt', async () => {
    const errors = new Set<string>();
    for (const attempt of [1, 2, 3]) {
      const r = await run('ch09', 'research', 'RESEARCH_COMPLETE', attempt);
      expect(r.exitCode).toBe(1);
      errors.add(r.stderr);
    }
    expect([...errors]).toEqual(["TypeError: Cannot read properties of undefined (reading 'sections') at renderOutline (outline.js:42)"]);
  });

  it('overloaded fails only attempt 1 with 529', async () => {
    const first = await run('ch10', 'draft', 'DRAFT_COMPLETE', 1);
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toContain('529 Overloaded');
    expect((await run('ch10', 'draft', 'DRAFT_COMPLETE', 2)).exitCode).toBe(0);
  });

  it('context fails with a context-length error, leaving a half-product', async () => {
    const r = await run('ch11', 'draft', 'DRAFT_COMPLETE', 2);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('context length exceeded: maximum context length is 200000 tokens');
    expect(readFileSync(join(ws, 'draft-ch11.md'), 'utf8')).not.toContain('DRAFT_COMPLETE');
  });

  it('hang goes silent after its first lines until the idle watchdog kills it', async () => {
    const output = join(ws, 'drafts', 'ch06-draft.md');
    const h = startProcess({
      runId: 'hang-1',
      argv: [process.execPath, ...agentArgs('ch06', 'draft', 'DRAFT_COMPLETE', 1, output)],
      cwd: ws,
      env: { CHECKROOM_FAKE_SPEED: '100' },
      logPath: join(ws, '.checkroom', 'runs', 'hang-1.log'),
      outputPath: output,
      idleTimeoutMs: 800,
      timeoutMs: 20_000,
      graceMs: 200,
    });
    const r = await h.result;
    expect(r.stalled).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.tail.at(-1)).toBe('[writer ch06] waiting for the model…');
    expect(r.tail.filter((l) => l.includes('writing section'))).toEqual(['[writer ch06] writing section 1/6']);
    const text = readFileSync(output, 'utf8');
    expect(statSync(output).size).toBeGreaterThan(0);
    expect(text).not.toContain('## 1.');
    expect(text).not.toContain('DRAFT_COMPLETE');
  });

  it('demo faults.json maps the demo chapters to their faults', () => {
    const demo = JSON.parse(readFileSync(resolve('demo-workspace/agents/faults.json'), 'utf8'));
    expect(demo).toMatchObject({
      'ch05/r2': 'rate_limit_twice',
      'ch06/draft': 'hang',
      'ch07/research': 'no_marker',
      'ch08/research': 'permission',
      'ch09/research': 'same_error',
      '*/*': 'ok',
    });
  });
});
