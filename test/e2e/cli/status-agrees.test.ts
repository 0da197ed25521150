import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { StatusJson } from '../../../src/cli/json.js';
import { REPO, PHASE_1_2, doneFile, summaries, tempDir, writeFiles } from '../../helpers/workspace.js';

// `checkroom status` (text and --json, the built binary) says the operator model's counts
// (issue 18 item 1): text `status` said "0 warnings" while the todo table listed one.

const cli = (...args: string[]): string => execFileSync('node', [join(REPO, 'dist/src/cli.js'), ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '100' } });

describe('status: every warning, the todo table too', () => {
  it('a todo table without todo_deps is one warning in the text, in --json counts and in the list', () => {
    const root = tempDir('checkroom-status-agrees-');
    writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), ...Object.fromEntries([doneFile('ch01', 'research')]) });
    const d = new Database(join(root, 'todos.db'));
    d.exec("CREATE TABLE todos (id TEXT PRIMARY KEY, title TEXT, status TEXT DEFAULT 'pending')");
    d.prepare('INSERT INTO todos (id, title, status) VALUES (?, ?, ?)').run('ch01-draft', 'draft ch01', 'pending');
    d.close();
    const json = JSON.parse(cli('status', root, '--json')) as StatusJson;
    expect(json.todos!.warnings).toHaveLength(1);
    expect(json.counts.warnings).toBe(json.warnings.length + json.todos!.warnings.length);
    const text = cli('status', root);
    expect(text).toContain(`${json.counts.warnings} warnings`);
    expect(json.counts.warnings).toBeGreaterThan(0);
  });
});
