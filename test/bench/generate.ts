import { mkdirSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

// Synthetic book workspaces for `npm run bench`: N artifact files with realistic sizes
// (research 2–4 KB, drafts 8–20 KB, reviews 1.5–3 KB, finals 10–20 KB), mixed Chinese and
// ASCII text, ~10% without their marker. Deterministic (seeded) so runs compare.

const STEPS: [string, string, number, number][] = [
  ['research/{u}-research.md', 'RESEARCH_COMPLETE', 2000, 4000],
  ['drafts/{u}-draft.md', 'DRAFT_COMPLETE', 8000, 20000],
  ['reviews/{u}-r1-code.md', 'R1_CODE_REVIEW_COMPLETE', 1500, 3000],
  ['reviews/{u}-r2-consistency.md', 'R2_CONSISTENCY_REVIEW_COMPLETE', 1500, 3000],
  ['reviews/{u}-r3-content.md', 'R3_CONTENT_REVIEW_COMPLETE', 1500, 3000],
  ['reviews/{u}-review.md', 'REVIEW_COMPLETE', 1500, 3000],
  ['reader-feedback/{u}-panel.md', 'READER_PANEL_COMPLETE', 1500, 3000],
  ['chapters/{u}.md', 'CHAPTER_FINAL', 10000, 20000],
  ['publish/{u}.html', 'HTML_COMPLETE', 6000, 12000],
  ['drafts/{u}-notes.md', 'NOTES', 500, 1500], // not an artifact: noise the scan must skip
];

const rng = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

const POOL = (() => {
  const zh = 'B-tree 的每个节点对应一个页，页的大小在创建数据库时确定。写入时 pager 先把旧页写入日志，';
  const en = 'The pager keeps a cache of pages and writes each dirty page to the journal before it changes. ';
  let s = '';
  for (let i = 0; i < 800; i++) s += i % 3 === 0 ? `\n## Section ${i}\n\n` : i % 2 ? zh : en;
  return Buffer.from(s);
})();

export function generateWorkspace(dir: string, files: number, seed = 42): string {
  if (existsSync(join(dir, '.complete'))) return dir;
  const rand = rng(seed);
  const units = Math.ceil(files / STEPS.length);
  const digits = Math.max(2, String(units).length);
  const dirs = new Set(STEPS.map(([p]) => p.split('/')[0]));
  for (const d of [...dirs, 'meta']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'checkroom.yaml'), `units:\n  pattern: 'ch\\d{2,${digits}}'\n`);
  for (const f of ['outline-final.md', 'source-map.md', 'meta/glossary.md', 'meta/style-guide.md', 'meta/metaphor-registry.md', 'meta/cross-references.md'])
    writeFileSync(join(dir, f), '# x\n\ncontent.\n');
  let summaries = '# Chapter summaries\n';
  let n = 0;
  for (let u = 1; u <= units && n < files; u++) {
    const unit = `ch${String(u).padStart(digits, '0')}`;
    summaries += `\n## ${unit} — title\n\nSummary.\n`;
    for (const [tpl, marker, lo, hi] of STEPS) {
      if (n >= files) break;
      const size = Math.floor(lo + rand() * (hi - lo));
      const start = Math.floor(rand() * (POOL.length - size - 8));
      let body = POOL.subarray(start, start + size).toString('utf8').replace(/^\uFFFD+/, '');
      if (rand() >= 0.1) body += `\n\n<!-- ${marker} -->\n`;
      writeFileSync(join(dir, tpl.replace('{u}', unit)), body);
      n++;
    }
  }
  writeFileSync(join(dir, 'meta/chapter-summaries.md'), summaries);
  writeFileSync(join(dir, '.complete'), String(n));
  return dir;
}

export const countFiles = (dir: string): number =>
  readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
