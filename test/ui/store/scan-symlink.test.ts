import { describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWorkspace } from '../../../src/workspace.js';
import { readFileFacts } from '../../../src/scan/file-facts.js';
import { readTail } from '../../../src/ui/views/tail.js';
import { Confine } from '../../../src/scan/confine.js';
import { ConfigError, parseConfig } from '../../../src/pipeline/config/config.js';
import { tempDir, writeFiles, PHASE_1_2, prose, summaries, marked } from '../../helpers/workspace.js';

// Issue 8 item 7: an artifact that is a symlink out of the workspace is not read or quoted
// (its cell says why) unless checkroom.yaml names its root under outside_roots.

const SECRET = 'SECRET-OUTSIDE-TEXT';
const outside = (): string => {
  const dir = tempDir('checkroom-outside-');
  writeFileSync(join(dir, 'secret.md'), marked(`# ${SECRET}\n\n${prose(300)} ${SECRET}`, 'DRAFT_COMPLETE'));
  return dir;
};
const workspace = (extra: Record<string, string> = {}): string => {
  const root = tempDir();
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'research/ch01-research.md': marked(prose(300), 'RESEARCH_COMPLETE'), ...extra });
  mkdirSync(join(root, 'drafts'), { recursive: true });
  return root;
};

describe('symlinks out of the workspace (issue 8 item 7)', () => {
  it('does not read a linked file outside the workspace, and its cell says why', async () => {
    const out = outside();
    const root = workspace();
    symlinkSync(join(out, 'secret.md'), join(root, 'drafts/ch01-draft.md'));
    const s = await loadWorkspace(root);
    const cell = s.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!;
    expect(cell.marker).toBe(false);
    expect(cell.disk).toBe('unreadable');
    expect(cell.error).toContain('symlink out of the workspace');
    expect(cell.error).toContain('outside_roots');
    expect(JSON.stringify(s)).not.toContain(SECRET);
    await expect(readTail(join(root, 'drafts/ch01-draft.md'), new Confine(root))).rejects.toThrow(/symlink out of the workspace/);
  });

  it('does not read through a linked directory or a relative ../ link either', () => {
    const out = outside();
    const root = workspace();
    symlinkSync(out, join(root, 'linked'));
    expect(readFileFacts(join(root, 'linked/secret.md'), 'linked/secret.md', 'DRAFT_COMPLETE')).toMatchObject({ marker: false, unreadable: true, tail: '' });
    symlinkSync(`../../${out.split('/').slice(-1)[0]}/secret.md`, join(root, 'drafts/ch02-draft.md'));
    const f = readFileFacts(join(root, 'drafts/ch02-draft.md'), 'drafts/ch02-draft.md', 'DRAFT_COMPLETE');
    expect(f.error).toContain('symlink out of the workspace');
    expect(f.marker).toBe(false);
    expect(f.tail).not.toContain(SECRET);
  });

  it('reads links that stay inside the workspace', () => {
    const root = workspace({ 'drafts/real.md': marked(prose(300), 'DRAFT_COMPLETE') });
    symlinkSync('real.md', join(root, 'drafts/ch01-draft.md'));
    expect(readFileFacts(join(root, 'drafts/ch01-draft.md'), 'drafts/ch01-draft.md', 'DRAFT_COMPLETE').marker).toBe(true);
  });

  it('reads links into a root that checkroom.yaml names under outside_roots', async () => {
    const out = outside();
    const root = workspace({ 'checkroom.yaml': `outside_roots:\n  - ${out}\n` });
    symlinkSync(join(out, 'secret.md'), join(root, 'drafts/ch01-draft.md'));
    const s = await loadWorkspace(root);
    expect(s.cells.find((c) => c.unit === 'ch01' && c.step === 'draft')!.marker).toBe(true);
    const tail = await readTail(join(root, 'drafts/ch01-draft.md'), new Confine(root, s.pipeline.outsideRoots));
    expect(tail.lines.join('\n')).toContain(SECRET);
  });

  it('names a symlink loop instead of failing', () => {
    const root = workspace();
    symlinkSync('ch01-draft.md', join(root, 'drafts/ch02-draft.md'));
    symlinkSync('ch02-draft.md', join(root, 'drafts/ch01-draft.md'));
    const f = readFileFacts(join(root, 'drafts/ch01-draft.md'), 'drafts/ch01-draft.md', 'DRAFT_COMPLETE');
    expect(f).toMatchObject({ exists: true, unreadable: true, marker: false });
    expect(f.error).toContain('symlink loop');
  });

  it('validates outside_roots strictly, with file:line:col', () => {
    const bad = (yaml: string): ConfigError => {
      try {
        parseConfig(yaml, '/w/checkroom.yaml');
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('accepted');
    };
    expect(bad('name: x\noutside_roots: /shared\n').message).toMatch(/^\/w\/checkroom\.yaml:2:\d+: .*outside_roots.*\(expected a list of directory paths\)/);
    expect(bad('outside_roots:\n  - /\n').message).toMatch(/^\/w\/checkroom\.yaml:2:\d+: .*not the filesystem root/);
    expect(bad('outside_roots:\n  - ""\n').line).toBe(2);
    expect(parseConfig('outside_roots: [/shared, ../books]\n', '/w/checkroom.yaml').pipeline.outsideRoots).toEqual(['/shared', '/books']);
  });
});
