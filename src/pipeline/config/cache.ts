import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import type { WorkspaceConfig } from './types.js';
import { writeFileAtomic } from '../../fs/atomic-write.js';
import { isPresetFile } from '../presets/index.js';
import { assertInside } from '../../fs/confine-path.js';

// checkroom.yaml as last parsed: loading yaml and zod and building the
// schema cost ~0.1 s of CPU, a third of `grep -rl` at 50k files, for a file that rarely
// changes. `.checkroom/config-cache` keeps the parsed config with everything it came from:
// the file's path and exact text, the preset the layout chose, and the code that parsed it
// (this module's file, its size and mtime: any rebuild or upgrade changes them). Anything
// else (another text, a preset file, a config JSON cannot hold exactly) is parsed again.
// Like the facts cache it is only an optimisation: unreadable or foreign means "parse".

export const CONFIG_CACHE_FILE = join('.checkroom', 'config-cache');
const VERSION = 1;

/** The parser's identity: the file this code runs from; a new build is a new parser. */
const parserId = (): string => {
  try {
    const self = fileURLToPath(import.meta.url);
    const st = statSync(self);
    return `${self}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '';
  }
};

interface Stored {
  v: number;
  parser: string;
  file: string;
  text: string;
  detected: string | null;
  config: WorkspaceConfig;
}

/** The config parsed from exactly `text` (at `file`, with `detected`) by this parser, or null. */
export function cachedConfig(root: string, file: string, text: string, detected: string | null): WorkspaceConfig | null {
  let s: Partial<Stored>;
  try {
    s = JSON.parse(readFileSync(join(root, CONFIG_CACHE_FILE), 'utf8')) as Partial<Stored>;
  } catch {
    return null;
  }
  if (s.v !== VERSION || s.file !== file || s.text !== text || s.detected !== detected || typeof s.config !== 'object' || s.config === null) return null;
  const id = parserId();
  return id && s.parser === id ? s.config : null;
}

/** Keep `config` for the next read when JSON holds it exactly; never throws (an optimisation). */
export async function saveConfigCache(root: string, file: string, text: string, detected: string | null, config: WorkspaceConfig): Promise<void> {
  const parser = parserId();
  // A preset file is another input this key does not cover.
  if (!parser || isPresetFile(config.preset)) return;
  const json = JSON.stringify({ v: VERSION, parser, file, text, detected, config } satisfies Stored);
  // An undefined field, a NaN or an Infinity would come back different: not cached.
  if (!isDeepStrictEqual((JSON.parse(json) as Stored).config, config)) return;
  try {
    mkdirSync(assertInside('mkdir', join(root, '.checkroom'), [root])); // not recursive: never recreate a workspace that was moved away
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return;
  }
  try {
    await writeFileAtomic(join(root, CONFIG_CACHE_FILE), json, [root]);
  } catch {
    // read-only file system, no permission, full disk: the next read parses again
  }
}
