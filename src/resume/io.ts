import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CellStatus, Lang, WorkspaceState } from '../types.js';
import { LANGS } from '../checkpoint/i18n.js';
import { workspaceLang } from '../checkpoint/lang.js';
import { RESUME_VOCAB } from './vocab.js';
import { copyBackup } from '../backups/backups.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { readTextCapped, tooLargeMessage } from '../fs/read-capped.js';
import { buildResume, type ResumeOptions } from './build.js';
import { resumeFacts } from './facts.js';
import { parseResume, type ParsedResume } from './parse.js';

// RESUME.md on disk: written atomically after a backup of the previous letter (never
// overwritten without one), and compared with the disk on start (docs/domain.md, RESUME.md: "a new
// session reads RESUME.md … then verifies against the filesystem").

export const RESUME_FILE = 'RESUME.md';

/** The letter is a page or two; past 1 MB it is not a letter any more and is not read
 *  (bounded input). */
export const RESUME_MAX_BYTES = 1024 * 1024;

export async function writeResume(
  root: string,
  state: WorkspaceState,
  opts: ResumeOptions & { file?: string },
): Promise<{ path: string; backup: string | null; text: string }> {
  const file = opts.file ?? RESUME_FILE;
  const text = buildResume(state, { ...opts, lang: opts.lang ?? (await letterLang(root, state, file)) });
  let backup: string | null = null;
  try {
    await stat(join(root, file));
    backup = (await copyBackup(root, file, opts.now)).backup;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await writeFileAtomic(join(root, file), text, [root]);
  return { path: file, backup, text };
}

/** The language an existing letter is written in (its title says), or null. */
export async function resumeLang(root: string, file: string): Promise<Lang | null> {
  // Capped like every read of RESUME.md: an oversized letter has no language to keep.
  const r = await readTextCapped(join(root, file), RESUME_MAX_BYTES).catch(() => null);
  const text = r?.ok ? r.text : null;
  if (!text) return null;
  const first = text.split('\n', 1)[0];
  return LANGS.find((l) => first.includes(RESUME_VOCAB[l].title)) ?? null;
}

/**
 * The language of a new letter: the old letter's, else checkpoint.md's, else
 * the workspace's content or `language:` in checkroom.yaml (workspaceLang).
 */
export async function letterLang(root: string, state: WorkspaceState, file = RESUME_FILE): Promise<Lang> {
  return workspaceLang(root, state, (await resumeLang(root, file)) ?? (state.checkpoint.exists ? state.checkpoint.lang : null));
}

export interface ResumeDrift {
  exists: boolean;
  /** Age of the letter: now minus its generation time (or its mtime when that is unreadable). */
  ageMs: number | null;
  generatedAt: string | null;
  /** Where the letter no longer agrees with the disk, one sentence each. */
  disagreements: string[];
  parsed: ParsedResume | null;
}

/** `2026-11-27 18:40` (local) → epoch ms; also accepts ISO strings. */
export function parseResumeTime(s: string | null): number | null {
  if (!s) return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(s.trim());
  if (m) return new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0)).getTime();
  const t = Date.parse(s);
  return Number.isNaN(t) ? null : t;
}

const CATEGORY = { done: 'done', inProgress: 'in progress', notStarted: 'not started' } as const;

/** Compare what a letter says with what the state says. Pure; `resumeDrift` reads the file. */
// A status in a sentence, not a raw value used as an adjective ("ch06 draft is needs human").
const SAYS: Record<CellStatus, string> = { done: 'is done', partial: 'is partial', running: 'is running', failed: 'failed', needs_human: 'needs a human', not_started: 'is not started' };
const SHOWS: Record<CellStatus, string> = {
  done: 'disk shows it done',
  partial: 'disk shows it partial',
  running: 'disk shows it running',
  failed: 'disk shows it failed',
  needs_human: 'it is escalated and needs a human',
  not_started: 'disk shows it not started',
};

export function compareResume(parsed: ParsedResume, state: WorkspaceState, file = RESUME_FILE): string[] {
  const now = resumeFacts(state);
  const out: string[] = [];
  if (parsed.phase !== null && parsed.phase !== now.phase)
    out.push(`${file} says Phase ${parsed.phase}; disk shows ${now.phase === null ? 'every phase done' : `Phase ${now.phase}`}`);
  if (parsed.batch !== null && parsed.batch !== now.batch)
    out.push(`${file} says Batch ${parsed.batch}; disk shows ${now.batch === null ? 'no open batch' : `Batch ${now.batch}`}`);
  const diskCat = new Map<string, keyof typeof CATEGORY>();
  for (const k of Object.keys(CATEGORY) as (keyof typeof CATEGORY)[]) for (const u of now[k]) diskCat.set(u, k);
  for (const k of Object.keys(CATEGORY) as (keyof typeof CATEGORY)[]) {
    for (const u of parsed[k]) {
      const d = diskCat.get(u);
      if (d === undefined) out.push(`${file} lists ${u} as ${CATEGORY[k]}; disk knows no such chapter`);
      else if (d !== k) out.push(`${file} says ${u} is ${CATEGORY[k]}; disk shows it ${CATEGORY[d]}`);
    }
  }
  const cellOf = new Map(state.cells.map((c) => [`${c.unit}/${c.step}`, c]));
  for (const t of parsed.unfinished) {
    const c = cellOf.get(`${t.unit}/${t.step}`);
    if (c && c.status !== t.status) out.push(`${file} says ${t.unit} ${t.step} ${SAYS[t.status]}; ${SHOWS[c.status]}`);
  }
  return out;
}

export async function resumeDrift(root: string, state: WorkspaceState, opts: { file?: string; now?: number } = {}): Promise<ResumeDrift> {
  const file = opts.file ?? RESUME_FILE;
  let text: string;
  let mtimeMs: number;
  try {
    const abs = join(root, file);
    mtimeMs = (await stat(abs)).mtimeMs;
    const r = await readTextCapped(abs, RESUME_MAX_BYTES);
    if (!r.ok) {
      const why = tooLargeMessage(file, r.size, r.cap, `write a fresh letter with checkroom resume --write (the old one is backed up first)`);
      return { exists: true, ageMs: null, generatedAt: null, disagreements: [why], parsed: null };
    }
    text = r.text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, ageMs: null, generatedAt: null, disagreements: [], parsed: null };
    return { exists: true, ageMs: null, generatedAt: null, disagreements: [`${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`], parsed: null };
  }
  const parsed = parseResume(text);
  const at = parseResumeTime(parsed.generatedAt) ?? mtimeMs;
  const now = opts.now ?? Date.now();
  return { exists: true, ageMs: Math.max(0, now - at), generatedAt: parsed.generatedAt, disagreements: compareResume(parsed, state, file), parsed };
}
