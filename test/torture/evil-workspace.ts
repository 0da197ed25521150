import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles, marked, prose } from '../helpers/workspace.js';
import { settle } from '../helpers/writer.js';

// A workspace whose names, contents, journal and agent output carry terminal controls: CSI
// (clear screen), OSC 0 (window title) and OSC 52 (clipboard), CR, BS, a C1 CSI and a bidi
// override. Shared by the escape-injection torture tests (issue 8 item 9).

export const EVIL = '\u001b[2J\u001b]0;owned\u0007\u001b]52;c;cm0gLXJmIH4=\u0007\r\u0008\u009b31m\u202e';
// Every C0 control but tab and newline, DEL, every C1, and the bidi overrides.
export const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const AGENT = `const fs = require('fs'); const path = require('path');
const out = process.argv[2];
process.stdout.write('progress ${JSON.stringify(EVIL).slice(1, -1)} 50%\\n');
process.stderr.write('warn ${JSON.stringify(EVIL).slice(1, -1)}\\n');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, '# r ${JSON.stringify(EVIL).slice(1, -1)}\\n\\n' + 'x'.repeat(400) + '\\n\\n<!-- RESEARCH_COMPLETE -->\\n');`;

export function evilWorkspace(): { root: string; unit: string } {
  const root = tempDir();
  const unit = `ch02${EVIL}`;
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries(['ch01']),
    'agent.cjs': AGENT,
    'checkroom.yaml': `units:\n  pattern: ${JSON.stringify('ch\\d+[\\s\\S]*')}\n  list: [ch01, ${JSON.stringify(unit)}]\nagents:\n  researcher:\n    command: [node, agent.cjs, '{output}']\n`,
    'checkpoint.md': `# Book ${EVIL} — checkpoint\n\nLast updated: 2026-11-28 14:03 ${EVIL}\nCurrent phase: 3\n\n## Phase 3: Writing — ⏳\n\n| Chapter | Research | Draft |\n|---|---|---|\n| ch01 | ✅ | ⏳ |\n| ${unit} | ⏳ | — |\n`,
    'RESUME.md': `# RESUME ${EVIL}\n\nGenerated: 2026-11-28 14:03\n\n## Next steps\n- ${EVIL}\n`,
    [`drafts/ch01-draft.md`]: `# draft ${EVIL}\n\n${'y'.repeat(50)}${EVIL}`,
    [`research/ch01-research.md`]: marked(`# ch01 ${EVIL}\n\n${prose(400)}`, 'RESEARCH_COMPLETE'),
    // A half-product whose own name carries the controls (the unit is in the path).
    [`research/${unit}-research.md`]: `# half ${EVIL}\n\nshort`,
    [`reviews/${EVIL}.md`]: `stray ${EVIL}`,
  });
  mkdirSync(join(root, '.checkroom'), { recursive: true });
  appendFileSync(join(root, '.checkroom/journal.jsonl'), `not json ${EVIL}\n${JSON.stringify({ v: 1, at: 1, type: EVIL })}\n`);
  // A backup named after the evil unit, so `backups` lists and restores it.
  writeFileSync(join(root, `research/${unit}-research.md.bak.20261128-140300`), `older ${EVIL}`);
  // Left behind, not being written: past the quiet window (issue 17 item 1), or b refuses.
  settle(root);
  return { root, unit };
}

