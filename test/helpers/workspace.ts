import { mkdtempSync, mkdirSync, writeFileSync, cpSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { settle } from './settle.js';

// Real workspaces in temp directories: tests never touch demo-workspace/ in place.

export const REPO = resolve(import.meta.dirname, '..', '..');
export const DEMO = join(REPO, 'demo-workspace');

export function tempDir(prefix = 'checkroom-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeFiles(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

export function copyDemo(): string {
  const dir = tempDir('checkroom-demo-');
  cpSync(DEMO, dir, { recursive: true });
  rmSync(join(dir, '.checkroom'), { recursive: true, force: true });
  // A workspace a session left behind, not one being written: past the quiet window
  // (issue 17 item 1), every file as much older, so their order and any later write keep theirs.
  settle(dir);
  return dir;
}

/** A body of `n` characters of plausible prose, ending cleanly. */
export const prose = (n: number, ch = '文'): string => `${ch.repeat(Math.max(0, n - 1))}。`;

export const marked = (body: string, marker: string, eol = '\n'): string => `${body}${eol}${eol}<!-- ${marker} -->${eol}`;

export const BOOK_MARKERS: Record<string, [string, string]> = {
  research: ['research/{u}-research.md', 'RESEARCH_COMPLETE'],
  draft: ['drafts/{u}-draft.md', 'DRAFT_COMPLETE'],
  r1: ['reviews/{u}-r1-code.md', 'R1_CODE_REVIEW_COMPLETE'],
  r2: ['reviews/{u}-r2-consistency.md', 'R2_CONSISTENCY_REVIEW_COMPLETE'],
  r3: ['reviews/{u}-r3-content.md', 'R3_CONTENT_REVIEW_COMPLETE'],
  review: ['reviews/{u}-review.md', 'REVIEW_COMPLETE'],
  panel: ['reader-feedback/{u}-panel.md', 'READER_PANEL_COMPLETE'],
  final: ['chapters/{u}.md', 'CHAPTER_FINAL'],
  html: ['publish/{u}.html', 'HTML_COMPLETE'],
};

export const pathOf = (unit: string, step: string): string => BOOK_MARKERS[step][0].replace('{u}', unit);

/** A properly finished artifact for a book step. */
export const doneFile = (unit: string, step: string, body = `# ${unit} ${step}\n\n${prose(400)}`): [string, string] => [
  pathOf(unit, step),
  marked(body, BOOK_MARKERS[step][1]),
];

export const PHASE_1_2 = {
  'outline-final.md': '# Outline\n\n- ch01\n',
  'source-map.md': '# Source map\n\n- src/\n',
  'meta/glossary.md': '# Glossary\n\n- page: a block\n',
  'meta/style-guide.md': '# Style\n\nPlain.\n',
  'meta/metaphor-registry.md': '# Metaphors\n\n- library\n',
  'meta/cross-references.md': '# Cross references\n\n- ch01 → ch02\n',
};

export const summaries = (units: string[]): string =>
  `# Chapter summaries\n\n${units.map((u) => `## ${u} — title\n\nSummary of ${u}.\n`).join('\n')}`;

/** The demo's fake agent (agents/fake-agent.mjs): a real process that writes, stalls or fails on cue. */
export const FAKE_AGENT = join(DEMO, 'agents', 'fake-agent.mjs');

/** The fake agent's command line, its faults read from `root`/faults.json. */
export const fakeAgentCommand = (root: string): string =>
  `[node, ${JSON.stringify(FAKE_AGENT)}, --unit, '{unit}', --step, '{step}', --output, '{output}', --marker, '{marker}', --attempt, '{attempt}', --workspace, '{workspace}', --faults, ${JSON.stringify(join(root, 'faults.json'))}]`;

/** Short backoffs so retries are quick. */
export const FAST_BACKOFF = ['limits:', '  backoff_base: 20ms', '  backoff_max: 100ms'];

export interface FakeAgentYaml {
  units?: string[];
  /** The whole `units:` line, when the test needs a pattern too. */
  unitsLine?: string;
  /** false: no `batches:` line (an unbatched workspace). */
  batched?: boolean;
  /** CHECKROOM_FAKE_SPEED (1 is the demo's pace). */
  speed?: number;
  idle?: string;
  /** null: no `grace:` line (the config's default). */
  grace?: string | null;
  concurrency?: number;
  /** The role that holds the fake agent's definition (researcher). */
  agent?: string;
  /** The roles that share it. */
  roles?: string[];
  /** Top-level lines after the agents (limits, breaker, notify…); FAST_BACKOFF when omitted. */
  tail?: string[];
}

/** A book checkroom.yaml whose every agent is the fake agent. */
export function fakeAgentYaml(root: string, o: FakeAgentYaml = {}): string {
  const units = o.units ?? ['ch01'];
  return [
    'preset: book',
    o.unitsLine ?? `units: { list: [${units.join(', ')}] }`,
    ...(o.batched === false ? [] : [`batches: [{ id: 1, units: [${units.join(', ')}] }]`]),
    'agents:',
    `  ${o.agent ?? 'researcher'}: &a`,
    `    command: ${fakeAgentCommand(root)}`,
    `    env: { CHECKROOM_FAKE_SPEED: '${o.speed ?? 1}' }`,
    `    idle_timeout: ${o.idle ?? '20s'}`,
    ...(o.grace === null ? [] : [`    grace: ${o.grace ?? '200ms'}`]),
    ...(o.concurrency === undefined ? [] : [`    concurrency: ${o.concurrency}`]),
    ...(o.roles ?? ['writer', 'reviewer', 'editor', 'panel', 'archivist']).map((r) => `  ${r}: *a`),
    ...(o.tail ?? FAST_BACKOFF),
    '',
  ].join('\n');
}

/**
 * Writes into `root` a book workspace whose every agent is the fake agent, told by
 * `faults.json` how each cell behaves (ok unless `faults` says otherwise; its catch-all too).
 */
export function writeFakeAgentWs(root: string, o: FakeAgentYaml & { faults?: Record<string, string>; files?: Record<string, string> } = {}): string {
  writeFiles(root, { ...PHASE_1_2, 'meta/chapter-summaries.md': summaries([]), 'faults.json': JSON.stringify({ '*/*': 'ok', ...(o.faults ?? {}) }), ...(o.files ?? {}) });
  writeFileSync(join(root, 'checkroom.yaml'), fakeAgentYaml(root, o));
  return root;
}

/** The same in a new temp directory, with short backoffs so retries are quick. */
export function fakeAgentWorkspace(prefix: string, o: { units?: string[]; faults?: Record<string, string> } = {}): string {
  return writeFakeAgentWs(tempDir(prefix), o);
}
