import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, tempDir } from '../helpers/workspace.js';
import { writeAttempts } from '../helpers/attempt-logs.js';

// `checkroom logs` on the built binary (docs/logs.md, "From the shell"): real log files named
// by real journal lines; readable events by default, --raw as written (escaped), --grep with
// exit 1 on no match, --attempt, the search across every log, --follow while a log grows, and
// the exit codes of what cannot be shown.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const STREAM = readFileSync(join(REPO, 'test/fixtures/claude-stream-write.jsonl'), 'utf8').trimEnd().split('\n');
const run = (args: string[], cwd?: string) => spawnSync('node', [CLI, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8', input: '' });

const ws = () => {
  const root = tempDir('logs-cli-');
  const written = writeAttempts(root, [
    {
      unit: 'ch01',
      step: 'draft',
      attempts: [
        { lines: ['starting', 'Error: 429 Too Many Requests \u001b]0;pwned\u0007', 'giving up'], class: 'RATE_LIMITED', error: 'Error: 429 Too Many Requests (exit 1)' },
        { lines: STREAM, class: 'SUCCESS' },
      ],
    },
    { unit: 'ch02', step: 'draft', attempts: [{ lines: ['all fine', 'another 429 here'], class: 'SUCCESS' }] },
  ]);
  return { root, written };
};

describe('checkroom logs UNIT STEP', () => {
  it('prints the latest attempt as readable events; --raw as written; never a raw escape', () => {
    const { root } = ws();
    const r = run(['logs', root, 'ch01', 'draft']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^── ch01 draft · attempt 2 \(2 in the journal\) · agent writer · SUCCESS · \.checkroom\/runs\/ch01-draft-a2-/);
    expect(r.stdout).toContain('assistant: Writing the file.');
    expect(r.stdout).toContain('→ Write /tmp/cx-JmBCs2/out.md');
    expect(r.stdout).toMatch(/result success · \$0\.0216/);
    const raw = run(['logs', root, 'ch01', 'draft', '--raw']);
    expect(raw.stdout).toContain('{"type":"assistant"');
    const a1 = run(['logs', root, 'ch01', 'draft', '--attempt', '1']);
    expect(a1.status).toBe(0);
    expect(a1.stdout).toContain('Error: 429 Too Many Requests \\e]0;pwned\\a');
    expect(a1.stdout).not.toMatch(/\u001b|\u0007/);
  });

  it('--grep prints matching lines with their numbers, exit 1 when none; a pattern RE2 refuses is exit 2', () => {
    const { root } = ws();
    const g = run(['logs', 'ch01', 'draft', '--attempt', '1', '--grep', '4\\d9'], root);
    expect(g.status).toBe(0);
    expect(g.stdout.split('\n').slice(1, -1)).toEqual(['2: Error: 429 Too Many Requests \\e]0;pwned\\a']);
    expect(run(['logs', 'ch01', 'draft', '--grep', 'nowhere'], root).status).toBe(1);
    const bad = run(['logs', 'ch01', 'draft', '--grep', '(?=x)'], root);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('lookahead');
  });

  it('an unknown cell or attempt is exit 2 with what exists; a deleted log is exit 1 and says so', () => {
    const { root, written } = ws();
    const none = run(['logs', root, 'ch09', 'draft']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no attempt of ch09 draft in the journal');
    const a5 = run(['logs', root, 'ch01', 'draft', '--attempt', '5']);
    expect(a5.status).toBe(2);
    expect(a5.stderr).toContain('has no attempt 5; the journal has 1, 2');
    rmSync(written[0]!.logPath);
    const gone = run(['logs', root, 'ch01', 'draft', '--attempt', '1']);
    expect(gone.status).toBe(1);
    expect(gone.stdout).toContain('no such file');
  });

  it('a journal line pointing out of .checkroom/runs/ is refused, not printed', () => {
    const root = tempDir('logs-cli-escape-');
    const secret = join(tempDir('logs-secret-'), 'secret.txt');
    writeFileSync(secret, 'TOP SECRET\n');
    const [w] = writeAttempts(root, [{ unit: 'ch01', step: 'draft', attempts: [{ lines: ['x'], class: 'SUCCESS' }] }]);
    const j = join(root, '.checkroom', 'journal.jsonl');
    writeFileSync(j, readFileSync(j, 'utf8').replace(JSON.stringify(w!.logPath), JSON.stringify(secret)));
    const r = run(['logs', root, 'ch01', 'draft']);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('TOP SECRET');
    expect(r.stdout).toContain('not under .checkroom/runs/');
  });
});

describe('checkroom logs --grep across every log', () => {
  it('names the cell, attempt and line of every match', () => {
    const { root } = ws();
    const r = run(['logs', root, '--grep', '429']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1)).toEqual(['ch01 draft a1 2: Error: 429 Too Many Requests \\e]0;pwned\\a', 'ch02 draft a1 2: another 429 here']);
    expect(lines.at(-1)).toBe('── 2 matching lines in 3 logs');
    expect(run(['logs', root, '--grep', 'zzz']).status).toBe(1);
  });
});

describe('checkroom logs --follow', () => {
  it('prints what a live attempt appends, and ends when the journal says it exited', async () => {
    const root = tempDir('logs-follow-');
    const [w] = writeAttempts(root, [{ unit: 'ch01', step: 'draft', attempts: [{ lines: ['first'] }] }]);
    const child = spawn('node', [CLI, 'logs', root, 'ch01', 'draft', '--follow', '--raw'], { env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const until = async (what: string) => {
      for (let i = 0; i < 400 && !out.includes(what); i++) await new Promise((r) => setTimeout(r, 25));
      expect(out).toContain(what);
    };
    await until('first');
    appendFileSync(w!.logPath, 'second line\n');
    await until('second line');
    appendFileSync(w!.logPath, 'third');
    appendFileSync(join(root, '.checkroom', 'journal.jsonl'), JSON.stringify({ v: 1, type: 'exit', at: Date.now(), runId: w!.runId, unit: 'ch01', step: 'draft', agent: 'writer', exitCode: 0, signal: null, class: 'SUCCESS', markerFound: true, cmdFp: '', errFp: '', keywords: [], errorTail: [], durationMs: 1 }) + '\n');
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect(code).toBe(0);
    expect(out.trimEnd().split('\n').slice(1)).toEqual(['first', 'second line', 'third']);
  });
});
