import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Lang, WorkspaceState } from '../types.js';
import { loadConfig } from '../pipeline/config/load.js';

// The language of the files checkroom rebuilds (checkpoint.md, RESUME.md):
// without this they came out in English for a Japanese or Chinese workspace whenever the old file was
// gone. In order: the old file's language; else the workspace's own text (kana → Japanese,
// Han without kana → Chinese); else `language:` in checkroom.yaml; else English.

const SAMPLE_BYTES = 4096;
const SAMPLE_FILES = 16;

/** Japanese or Chinese when the text is written in it (a few CJK names in English prose are not). */
export function contentLang(text: string): Lang | null {
  const kana = text.match(/[\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  const han = text.match(/\p{Script=Han}/gu)?.length ?? 0;
  const latin = text.match(/\p{Script=Latin}/gu)?.length ?? 0;
  const cjk = kana + han;
  if (cjk < 10 || cjk / (cjk + latin) < 0.2) return null;
  return kana >= 5 ? 'ja' : 'zh';
}

async function head(abs: string): Promise<string> {
  try {
    const fh = await open(abs, 'r');
    try {
      const buf = Buffer.alloc(SAMPLE_BYTES);
      const { bytesRead } = await fh.read(buf, 0, SAMPLE_BYTES, 0);
      // A character cut at the end of the sample decodes to U+FFFD, which counts as nothing.
      return new TextDecoder('utf-8').decode(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  } catch {
    return '';
  }
}

/** The language of the workspace's own files: the first bytes of a few artifacts on disk. */
export async function sampleLang(root: string, state: WorkspaceState): Promise<Lang | null> {
  const files = [...state.pipeline.phases.flatMap((p) => p.artifacts), ...state.cells.filter((c) => c.exists && c.disk !== 'missing' && c.disk !== 'unreadable').map((c) => c.path)];
  const picked = [...new Set(files)].slice(0, SAMPLE_FILES);
  const texts = await Promise.all(picked.map((f) => head(join(root, f))));
  return contentLang(texts.join('\n'));
}

/** `language:` in checkroom.yaml, when the file can be read; never throws. */
const configLang = async (root: string): Promise<Lang | null> => (await loadConfig(root).catch(() => null))?.language ?? null;

/** The language to write a rebuilt file in; `old` is the language of the file it replaces. */
export async function workspaceLang(root: string, state: WorkspaceState, old: Lang | null): Promise<Lang> {
  return old ?? (await sampleLang(root, state)) ?? (await configLang(root)) ?? 'en';
}
