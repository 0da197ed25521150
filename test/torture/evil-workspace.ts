import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PHASE_1_2, summaries, tempDir, writeFiles, marked, prose } from '../helpers/workspace.js';
import { settle } from '../helpers/settle.js';

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


/**
 * A stand-in for ~/.ssh: a 0700 directory of ours (as ~/.ssh is) holding `id_ed25519`, and a
 * well-formed token file beside it, so a forged pointer passes every check but the one that
 * matters (issue 16 item 1).
 */
export function victimDir(): { dir: string; key: string; token: string; bytes: string } {
  const dir = tempDir('checkroom-victim-');
  const bytes = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot a real key\n-----END OPENSSH PRIVATE KEY-----\n';
  writeFileSync(join(dir, 'id_ed25519'), bytes, { mode: 0o600 });
  writeFileSync(join(dir, 'forged.token'), JSON.stringify({ pid: 999_999_999, token: 'forged' }), { mode: 0o600 });
  return { dir, key: join(dir, 'id_ed25519'), token: join(dir, 'forged.token'), bytes };
}

/** `.checkroom/socket.json` as a repository could ship it, naming any path as the "socket". */
export function forgePointer(root: string, socket: string, token: string): void {
  mkdirSync(join(root, '.checkroom'), { recursive: true });
  writeFileSync(join(root, '.checkroom', 'socket.json'), JSON.stringify({ socket, token, pid: 999_999_999 }) + '\n');
}

// Issue 16 item 2: names from checkroom.yaml reach every output too. HOSTILE carries what
// EVIL does not: OSC 52 and OSC 0 ended by BEL, CSI 2J, CR, BS, the zero-width and format
// characters (ZWSP, ZWJ, BOM, soft hyphen), a bidi override, tag characters and U+2028.
export const HOSTILE = '\u001b]52;c;cm0gLXJmIH4=\u0007\u001b]0;owned\u0007\u001b[2J\u0007\r\u0008\u200b\u200d\ufeff\u00ad\u202e\u{e0041}\u{e007f}\u2028';
// Everything no output may carry raw: C0 but tab and newline, DEL, C1, U+2028/9 and every
// format character (Cf: ZW*, BOM, soft hyphen, bidi controls, tags).
export const RAW_ANY = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

/** A YAML double-quoted scalar with every character outside printable ASCII as an escape. */
const yamlQuoted = (s: string): string =>
  `"${[...s].map((c) => (/[ -~]/.test(c) ? (c === '"' || c === '\\' ? `\\${c}` : c) : c.codePointAt(0)! > 0xffff ? `\\U${c.codePointAt(0)!.toString(16).padStart(8, '0')}` : `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`)).join('')}"`;

/** The names evilConfigWorkspace gives its config fields: each one printed by some command. */
export const HOSTILE_NAMES = {
  pipeline: `Book${HOSTILE}`,
  phase3: `Writing${HOSTILE}`,
  phase4: `Audit${HOSTILE}`,
  research: `Research${HOSTILE}`,
  draft: `Draft${HOSTILE}`,
  agent: `res${HOSTILE}`,
  unit: `ch03${HOSTILE}`,
};

/**
 * evilWorkspace with checkroom.yaml's printed fields hostile as well: the pipeline's name,
 * phase names, step labels and aliases, an agent's name (and the step naming it) and a unit.
 */
export function evilConfigWorkspace(): { root: string; unit: string } {
  const w = evilWorkspace();
  const n = HOSTILE_NAMES;
  const q = yamlQuoted;
  writeFileSync(
    join(w.root, 'checkroom.yaml'),
    [
      `name: ${q(n.pipeline)}`,
      `units:\n  pattern: ${JSON.stringify('ch\\d+[\\s\\S]*')}\n  list: [ch01, ${q(w.unit)}, ${q(n.unit)}]`,
      `phases:\n  - { id: 3, name: ${q(n.phase3)} }\n  - { id: 4, name: ${q(n.phase4)} }`,
      `steps:\n  - { id: research, label: ${q(n.research)}, aliases: [${q(n.research)}, Research], agent: ${q(n.agent)} }\n  - { id: draft, label: ${q(n.draft)} }`,
      `agents:\n  ${q(n.agent)}:\n    command: [node, agent.cjs, '{output}']\n  researcher:\n    command: [node, agent.cjs, '{output}']`,
      '',
    ].join('\n'),
  );
  return w;
}

// Issue 16 item 3: a pattern that backtracks exponentially on V8 (`(\d+)+` before a
// character it cannot match) and names built to make it: `ch` + 36 digits + `!` took hours.
export const CATASTROPHIC_PATTERN = 'ch(\\d+)+x?';
export const CATASTROPHIC_ID = `ch${'1'.repeat(36)}!`;

/**
 * A book workspace whose units.pattern (or, with `todos`, sources.todo_pattern) is
 * catastrophic for a backtracking engine, with a research file (or a todo, in a todos.db the
 * caller fills: `todoDb`) named to trigger it.
 */
export function catastrophicWorkspace(where: 'units' | 'todos'): { root: string; todoDb: string } {
  const root = tempDir('checkroom-redos-');
  const config =
    where === 'units'
      ? `units:\n  pattern: ${JSON.stringify(CATASTROPHIC_PATTERN)}\n`
      : `sources:\n  todos: todos.db\n  todo_pattern: ${JSON.stringify(`^(?<unit>${CATASTROPHIC_PATTERN})-(?<step>[a-z]+)$`)}\n`;
  writeFiles(root, {
    ...PHASE_1_2,
    'meta/chapter-summaries.md': summaries(['ch01']),
    'checkroom.yaml': config,
    [`research/${CATASTROPHIC_ID}-research.md`]: `# ${CATASTROPHIC_ID}\n\nshort\n`,
    'research/ch01-research.md': marked(`# ch01\n\n${prose(400)}`, 'RESEARCH_COMPLETE'),
  });
  return { root, todoDb: join(root, 'todos.db') };
}
