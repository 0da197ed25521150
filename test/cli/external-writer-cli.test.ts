import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseCli } from '../../src/cli/args.js';
import { backupsCommand } from '../../src/cli/commands/recovery-commands.js';
import { recoverReport } from '../../src/recover/report.js';
import { copyDemo, tempDir, writeFiles } from '../helpers/workspace.js';
import { holdOpen, killWriters, settle } from '../helpers/writer.js';

// Issue 17 item 1 on the CLI's recovery paths: `backups --restore` moves the current file
// aside, `recover` rewrites checkpoint.md and RESUME.md; neither does it to a file a process
// holds open for writing, and each says who holds it.

afterEach(killWriters);

const o = { paint: (_t: string, s: string) => s, ascii: true, width: 100 };
const capture = () => {
  let text = '';
  return { out: { write: (s: string) => void (text += s) }, text: () => text };
};

describe('the CLI leaves a file alone while a process writes it', () => {
  it('backups --restore refuses (exit 2), names the writer, and the writer keeps the file', async () => {
    const root = tempDir('checkroom-external-cli-');
    writeFiles(root, { 'drafts/ch05-draft.md': 'current half', 'drafts/ch05-draft.md.bak.20261128-140000': 'older\n' });
    settle(root);
    const w = await holdOpen(join(root, 'drafts/ch05-draft.md'));
    const c = capture();
    expect(await backupsCommand(parseCli(['backups', root, 'drafts/ch05-draft.md', '--restore', 'ch05-draft.md.bak.20261128-140000']), o, c.out)).toBe(2);
    expect(c.text()).toMatch(
      new RegExp(`^checkroom: not restored: drafts/ch05-draft\\.md is being written by pid ${w.pid} \\(sh\\) since \\d\\d:\\d\\d \\(not launched by checkroom\\); wait until it stops; nothing was changed\\n$`),
    );
    await w.finish(' and the rest\n');
    expect(readFileSync(join(root, 'drafts/ch05-draft.md'), 'utf8')).toBe('current half and the rest\n');
    expect(readdirSync(join(root, 'drafts')).sort()).toEqual(['ch05-draft.md', 'ch05-draft.md.bak.20261128-140000']);
  });

  it('recover does not rewrite a checkpoint.md a process holds open for writing, and says so', async () => {
    const root = copyDemo();
    const before = readFileSync(join(root, 'checkpoint.md'), 'utf8');
    const w = await holdOpen(join(root, 'checkpoint.md'));
    const report = await recoverReport(root, { dryRun: false });
    const cp = report.rebuilt.find((a) => a.target === 'checkpoint.md');
    expect(cp).toMatchObject({ done: false, manual: true });
    expect(cp?.blocked).toMatch(new RegExp(`^checkpoint\\.md is being written by pid ${w.pid} \\(sh\\) .*; wait until it stops, then run checkroom recover again$`));
    expect(readdirSync(root).filter((f) => f.startsWith('checkpoint.md.bak'))).toEqual([]);
    await w.finish('| appended by the writer |\n');
    expect(readFileSync(join(root, 'checkpoint.md'), 'utf8')).toBe(`${before}| appended by the writer |\n`);
  });
});
