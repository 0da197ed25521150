import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJournal } from '../../src/run/journal/journal.js';
import { REPO, PHASE_1_2, summaries, tempDir, writeFiles } from '../helpers/workspace.js';

// Issue 8 item 9: template injection (placeholder values that look like placeholders, shell
// metacharacters, newlines reach the agent's argv literally, one element each) and breaker
// storms (many failing agents at once: the breaker opens and no runaway launches follow).

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '', timeout: 120_000 });

/** Records its argv; fails its first attempt with a nasty error line, then writes the output. */
const DUMP = `const fs = require('fs'); const path = require('path');
const [out, attempt] = [process.argv[3], process.argv[5]];
fs.appendFileSync(path.join(__dirname, 'argv.jsonl'), JSON.stringify(process.argv.slice(2)) + '\\n');
if (attempt === '1') { process.stderr.write('boom {unit} {output} $(touch pwned2) \`touch pwned3\` ; touch pwned4\\n'); process.exit(3); }
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, '# r\\n\\n' + 'x'.repeat(400) + '\\n\\n<!-- RESEARCH_COMPLETE -->\\n');`;

describe('torture: template injection', () => {
  it('unit values and {last_error} reach argv literally: no expansion, no shell, one element each', { timeout: 180_000 }, () => {
    const root = tempDir();
    const units = ['ch01{step}{output}', 'ch02$(touch pwned)', 'ch03;touch pwned;`touch pwned`', 'ch04\nline two', 'ch05 $HOME *'];
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'dump.cjs': DUMP,
      'checkroom.yaml': [
        'units:',
        `  pattern: ${JSON.stringify('ch\\d+[\\s\\S]*')}`,
        `  list: [${units.map((u) => JSON.stringify(u)).join(', ')}]`,
        'agents:',
        '  researcher:',
        "    command: [node, dump.cjs, '{unit}', '{output}', 'pre-{step}-post', '{attempt}', '{last_error}']",
        'limits:',
        '  backoff_base: 10ms',
        '  backoff_max: 20ms',
        'breaker:',
        '  threshold: 100',
        '',
      ].join('\n'),
    });
    for (const u of units) {
      const r = cli(['run', root, '--yes', '--', u, 'research']);
      expect(r.status, `${JSON.stringify(u)}: ${r.stdout}${r.stderr}`).toBe(0);
    }
    const calls = readFileSync(join(root, 'argv.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as string[]);
    expect(calls).toHaveLength(units.length * 2);
    units.forEach((u, i) => {
      const [first, second] = [calls[2 * i], calls[2 * i + 1]];
      expect(first).toEqual([u, join(root, `research/${u}-research.md`), 'pre-research-post', '1', '']);
      expect(second.slice(0, 4)).toEqual([u, join(root, `research/${u}-research.md`), 'pre-research-post', '2']);
      // The last error is the agent's own line, placeholders and metacharacters untouched.
      expect(second[4]).toContain('boom {unit} {output} $(touch pwned2) `touch pwned3` ; touch pwned4');
      expect(existsSync(join(root, `research/${u}-research.md`))).toBe(true);
    });
    for (const f of ['pwned', 'pwned2', 'pwned3', 'pwned4']) expect(existsSync(join(root, f))).toBe(false);
  });
});

describe('torture: breaker storm', () => {
  it('ten failing agents at once: the breaker opens, launches stop, the run ends', { timeout: 120_000 }, async () => {
    const root = tempDir();
    const units = Array.from({ length: 10 }, (_, i) => `ch${String(i + 1).padStart(2, '0')}`);
    writeFiles(root, {
      ...PHASE_1_2,
      'meta/chapter-summaries.md': summaries([]),
      'fail.cjs': "setTimeout(() => { process.stderr.write('503 upstream exploded\\n'); process.exit(1); }, 50);",
      'checkroom.yaml': [
        `units: { list: [${units.join(', ')}] }`,
        'agents:',
        '  researcher:',
        "    command: [node, fail.cjs, '{unit}']",
        '    concurrency: 5',
        'limits:',
        '  max_launches: 200',
        '  max_consecutive_failures: 100',
        '  backoff_base: 10ms',
        '  backoff_max: 20ms',
        'breaker:',
        '  threshold: 3',
        '  cooldown: 10m',
        '',
      ].join('\n'),
    });
    const child = spawn('node', [CLI, 'run', root, '--next', '--auto', '--max', '10', '--yes'], { env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const count = (re: RegExp) => (out.match(re) ?? []).length;
    try {
      // Bounded wait: the breaker opened and every attempt that started has ended.
      for (let i = 0; i < 600 && !(/breaker researcher open/.test(out) && count(/ started \(/g) === count(/ failed \(/g)); i++) await new Promise((r) => setTimeout(r, 100));
      expect(out).toMatch(/breaker researcher open after \d+ consecutive failures \(threshold 3/);
      const launches = (await readJournal(root)).events.filter((e) => e.type === 'launch');
      // Before it opens, each of the first threshold - 1 failures may start a retry; after
      // it opens, nothing: at most concurrency + threshold - 1 launches, and every retry of
      // every cell waits on the breaker (no runaway).
      expect(launches.length).toBeGreaterThanOrEqual(5);
      expect(launches.length).toBeLessThanOrEqual(5 + 3 - 1);
      expect(count(/ started \(/g)).toBe(launches.length);
    } finally {
      child.kill('SIGINT');
    }
    const n = (await readJournal(root)).events.filter((e) => e.type === 'launch').length;
    expect(await exited).not.toBeNull();
    expect((await readJournal(root)).events.filter((e) => e.type === 'launch')).toHaveLength(n);
    expect(n).toBeLessThanOrEqual(7);
    expect(readdirSync(root).includes('research')).toBe(false);
  });
});
