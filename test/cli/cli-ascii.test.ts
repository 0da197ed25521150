import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyDemo, REPO } from '../helpers/workspace.js';

// Issue 18 item 5: the text commands under a non-UTF-8 locale sent `· … → —` and the demo's
// Chinese title as UTF-8 bytes, which a LANG=C client draws as garbage. Every byte of their
// text is ASCII now, names escaped visibly (`\u6df1`); `--json` stays UTF-8 JSON for
// scripts; and what the commands write to disk is the same bytes under any locale.

const CLI = join(REPO, JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).bin.checkroom);
const C = { LANG: 'C', LC_ALL: 'C', LC_CTYPE: '' };

const run = (args: string[], env: Record<string, string>) =>
  spawnSync('node', [CLI, ...args], { env: { ...process.env, NO_COLOR: '1', CHECKROOM_SOCKET: 'off', ...env }, input: '', maxBuffer: 64 << 20 });

const firstHigh = (b: Buffer): string => {
  const i = b.findIndex((x) => x > 0x7f);
  return i < 0 ? 'all 7-bit' : `byte 0x${b[i].toString(16)} at ${i}: ${JSON.stringify(b.subarray(Math.max(0, i - 40), i + 40).toString('latin1'))}`;
};

describe('text commands under LANG=C write ASCII only', () => {
  const dir = copyDemo();
  const name = (JSON.parse(run(['status', '--json', dir], {}).stdout.toString('utf8')) as { name: string }).name;

  // The last one is an error on stderr that quotes its argument.
  for (const args of [
    ['status', 'DIR'],
    ['plan', 'DIR'],
    ['partials', 'DIR'],
    ['recover', '--dry-run', 'DIR'],
    ['resume', 'DIR'],
    ['explain', 'caps', 'DIR'],
    ['--help'],
    ['status', 'DIR/无此目录'],
  ]) {
    it(`checkroom ${args.join(' ')}`, () => {
      const r = run(
        args.map((a) => a.replace('DIR', dir)),
        C,
      );
      expect(`stdout: ${firstHigh(r.stdout)}`).toBe('stdout: all 7-bit');
      expect(`stderr: ${firstHigh(r.stderr)}`).toBe('stderr: all 7-bit');
      expect(r.stdout.length + r.stderr.length).toBeGreaterThan(20);
    });
  }

  it('names stay distinguishable: the demo title is escaped, not dropped', () => {
    const out = run(['status', dir], C).stdout.toString('latin1');
    const escaped = [...name].map((ch) => (ch.codePointAt(0)! < 0x80 ? ch : `\\u${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`)).join('');
    expect(out).toContain(escaped);
  });

  it('--json is UTF-8 JSON, the same bytes as under a UTF-8 locale', () => {
    for (const cmd of ['status', 'plan', 'partials']) {
      const c = run([cmd, '--json', '--no-cache', dir], C)
        .stdout.toString('utf8')
        .replace(/"scannedAt":"[^"]*"/, '');
      const u = run([cmd, '--json', '--no-cache', dir], { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' })
        .stdout.toString('utf8')
        .replace(/"scannedAt":"[^"]*"/, '');
      expect(c).toBe(u);
    }
    expect(run(['status', '--json', dir], C).stdout.toString('utf8')).toContain(JSON.stringify(name));
  });

  it('files written under LANG=C hold the same bytes as under UTF-8 (the letter is not transliterated)', () => {
    const a = copyDemo();
    const b = copyDemo();
    expect(run(['resume', '--write', a], C).status).toBe(0);
    expect(run(['resume', '--write', b], { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' }).status).toBe(0);
    const letter = (d: string) =>
      readFileSync(join(d, 'RESUME.md'), 'utf8')
        .replaceAll(d, 'DIR')
        .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?/g, 'T');
    expect(letter(a)).toBe(letter(b));
    expect(letter(a)).toContain(name);
    expect(readdirSync(a).length).toBe(readdirSync(b).length);
  });
});
