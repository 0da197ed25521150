import { tempDir, writeFiles, doneFile, PHASE_1_2, summaries, pathOf, prose } from './workspace.js';
import { SOURCE_CHECKPOINT } from './source-example.js';
import { settle } from './settle.js';

// Issue 18 item 3's book: the source document's checkpoint (当前批次: Batch 2), whose agents were
// working in Batch 2 when interrupted (ch03 R1 cut mid-sentence, ⏳; ch05's draft a 60-character
// half-product, ⏳), and two Batch 1 cells whose markers were lost since checkpoint.md marked
// them ✅: ch01's draft and ch02's merged review (their files are there, without the marker).

export const BATCH1 = ['ch01', 'ch02', 'ch04'];
const STEPS = ['research', 'draft', 'r1', 'r2', 'r3', 'review', 'panel'];

export interface WhereBookOptions {
  /** The checkpoint's "当前批次" line: a batch number, or null for no such line; absent: Batch 2. */
  batch?: number | null;
  /** No checkpoint.md at all. */
  noCheckpoint?: boolean;
  /** Keep Batch 1's markers (no regressions). */
  intact?: boolean;
}

export function whereBook(o: WhereBookOptions = {}): string {
  const root = tempDir('checkroom-where-');
  let checkpoint = SOURCE_CHECKPOINT;
  if (o.batch !== undefined) checkpoint = checkpoint.replace('当前批次: Batch 2\n', o.batch === null ? '' : `当前批次: Batch ${o.batch}\n`);
  const files: Record<string, string> = { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries(BATCH1) };
  if (!o.noCheckpoint) files['checkpoint.md'] = checkpoint;
  for (const u of BATCH1) for (const s of STEPS) Object.assign(files, Object.fromEntries([doneFile(u, s)]));
  Object.assign(files, Object.fromEntries([doneFile('ch03', 'research'), doneFile('ch03', 'draft'), doneFile('ch03', 'r3'), doneFile('ch05', 'research')]));
  files[pathOf('ch03', 'r1')] = `# R1 code review\n\n${prose(300)}\n\n1. The example on line 12 does not compile because the`;
  files[pathOf('ch05', 'draft')] = '文'.repeat(60);
  if (!o.intact) {
    // The markers lost: the whole text is there, its last line is not the marker.
    files[pathOf('ch01', 'draft')] = `# ch01 draft\n\n${prose(400)}\n`;
    files[pathOf('ch02', 'review')] = `# ch02 review\n\n${prose(400)}\n`;
  }
  writeFiles(root, files);
  // Left behind by a session, not being written (past the quiet window, issue 17 item 1).
  settle(root);
  return root;
}
