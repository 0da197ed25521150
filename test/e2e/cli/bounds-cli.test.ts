import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, PHASE_1_2, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// Issue 8 item 7, CLI hygiene: every line that carries workspace text is escaped (`run`'s
// last line printed a unit name with its escape sequences), and `--` ends the options so a
// unit whose name starts with `-` can be run.

const CLI = join(REPO, 'dist/src/cli.js');
const cli = (args: string[]) => spawnSync('node', [CLI, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, input: '' });

/** An agent that writes a finished research file: argv[2] is the output path. */
const AGENT = `const fs = require('fs'); const path = require('path'); const out = process.argv[2];
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, '# r\\n\\n' + 'x'.repeat(400) + '\\n\\n<!-- RESEARCH_COMPLETE -->\\n');`;

const workspace = (units: string[], pattern: string): string => {
  const root = tempDir();
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'agent.cjs': AGENT });
  writeFileSync(
    join(root, 'checkroom.yaml'),
    `units:\n  pattern: ${JSON.stringify(pattern)}\n  list: [${units.map((u) => JSON.stringify(u)).join(', ')}]\nagents:\n  researcher:\n    command: [node, agent.cjs, '{output}']\n`,
  );
  return root;
};

// Raw terminal controls that must never reach the output: ESC (CSI, OSC), CR, BS, BEL.
const RAW = /[\u001b\r\u0008\u0007\u009b]/;

describe('CLI hygiene', () => {
  it('run: every line, the last one included, escapes a unit name carrying escape sequences', { timeout: 120_000 }, () => {
    const unit = 'ch01\u001b[2J\u001b]0;pwned\u0007\r';
    const root = workspace([unit], 'ch01[\\s\\S]*');
    const r = cli(['run', root, unit, 'research', '--yes']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    const last = r.stdout.trim().split('\n').at(-1)!;
    expect(last).toBe('ch01\\e[2J\\e]0;pwned\\a\\r research: done after 1 attempt');
    expect(existsSync(join(root, `research/${unit}-research.md`))).toBe(true);
  });

  it('-- ends the options: a unit named -x1 runs; without -- the error says to use it', { timeout: 120_000 }, () => {
    const root = workspace(['-x1'], '-x\\d+');
    const bad = cli(['run', root, '-x1', 'research']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`Unknown option '-x'; if "-x" is a unit or a file, put it after the options and --`);
    const r = cli(['run', root, '--yes', '--', '-x1', 'research']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('-x1 research: done after 1 attempt');
    expect(readFileSync(join(root, 'research/-x1-research.md'), 'utf8')).toMatch(/RESEARCH_COMPLETE -->\n$/);
  });
});
