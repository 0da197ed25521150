import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLiveWorkspace, type LiveWorkspace } from '../../src/live/live-workspace.js';
import { loadWorkspace } from '../../src/workspace.js';
import { REPO, PHASE_1_2, summaries, tempDir, writeFiles, marked, prose } from '../helpers/workspace.js';

// Issue 8 item 9: temp-then-rename bursts (the way editors and atomic writers save) end
// with the live view showing what a fresh scan shows; and at the watch limit the live view
// really falls back to polling and still sees changes.

const DIST = join(REPO, 'dist/src');
const lives: LiveWorkspace[] = [];
afterEach(async () => {
  for (const l of lives.splice(0)) await l.close();
});

const book = (units: string[]): string => {
  const root = tempDir();
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'checkroom.yaml': `units: { list: [${units.join(', ')}] }\n` });
  for (const d of ['research', 'drafts']) mkdirSync(join(root, d), { recursive: true });
  return root;
};

const cellsOf = (s: { cells: { unit: string; step: string; status: string; chars: number }[] }) =>
  s.cells.map((c) => `${c.unit}/${c.step}:${c.status}:${c.chars}`).sort();

describe('torture: live view under temp-then-rename bursts', () => {
  it('hundreds of temp writes renamed over artifacts end with the state a fresh scan gives', { timeout: 120_000 }, async () => {
    const units = Array.from({ length: 12 }, (_, i) => `ch${String(i + 1).padStart(2, '0')}`);
    const root = book(units);
    const live = await createLiveWorkspace(root, { watch: true });
    lives.push(live);
    expect(live.watching.mode).toBe('watch');
    for (let round = 0; round < 20; round++) {
      for (const u of units) {
        for (const [step, dir, marker] of [['research', 'research', 'RESEARCH_COMPLETE'], ['draft', 'drafts', 'DRAFT_COMPLETE']] as const) {
          const target = join(root, dir, `${u}-${step}.md`);
          const tmp = join(root, dir, `.${u}-${step}.md.${process.pid}.${round.toString(16).padStart(8, '0')}.tmp`);
          // The last round leaves every research done and every draft a half-product.
          const body = `# ${u} ${step} ${round}\n\n${prose(300 + round)}`;
          writeFileSync(tmp, round === 19 && step === 'research' ? marked(body, marker) : body);
          renameSync(tmp, target);
        }
      }
    }
    const want = cellsOf(await loadWorkspace(root));
    for (let i = 0; i < 300 && JSON.stringify(cellsOf(live.state)) !== JSON.stringify(want); i++) await new Promise((r) => setTimeout(r, 50));
    expect(cellsOf(live.state)).toEqual(want);
    expect(want.filter((c) => c.includes('/research:done'))).toHaveLength(12);
    expect(want.filter((c) => c.includes('/draft:partial'))).toHaveLength(12);
  });
});

// A user namespace has its own inotify limit (/proc/sys/user/max_inotify_watches): the
// limit is lowered there only, so no system setting is changed and nothing needs restoring.
const userns = spawnSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 3 > /proc/sys/user/max_inotify_watches'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!userns)(`torture: watch-limit exhaustion (${userns ? 'in a user namespace' : 'needs unshare -U (user namespaces)'})`, () => {
  it('at the watch limit the live view says so, polls, and still sees a step finish', { timeout: 120_000 }, () => {
    const root = book(['ch01']);
    const script = `
      import { createLiveWorkspace } from ${JSON.stringify(join(DIST, 'live/live-workspace.js'))};
      import { writeFileSync } from 'node:fs';
      const live = await createLiveWorkspace(${JSON.stringify(root)}, { watch: true, pollMs: 100 });
      console.log(JSON.stringify({ mode: live.watching.mode, notice: live.watching.notice }));
      writeFileSync(${JSON.stringify(join(root, 'research/ch01-research.md'))}, ${JSON.stringify(marked(`# r\n\n${prose(400)}`, 'RESEARCH_COMPLETE'))});
      const done = () => live.state.cells.find((c) => c.unit === 'ch01' && c.step === 'research')?.status === 'done';
      for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
      console.log(JSON.stringify({ done: done() }));
      await live.close();
    `;
    const r = spawnSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 3 > /proc/sys/user/max_inotify_watches && exec node --input-type=module -e "$0"', script], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const [first, second] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(first.mode).toBe('poll');
    expect(first.notice).toContain('the system watch limit is reached (fs.inotify.max_user_watches); falling back to rescans');
    expect(second).toEqual({ done: true });
  });
});
