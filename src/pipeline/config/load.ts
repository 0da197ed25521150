import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceConfig } from './types.js';
import { formatBytes, readTextCapped } from '../../fs/read-capped.js';
import { detectPreset } from '../detect-preset.js';
import { DEFAULT_PRESET, presetOf } from '../presets/index.js';
import { DEFAULT_BREAKER, DEFAULT_LIMITS, DEFAULT_SOURCES } from '../defaults.js';
import { ConfigError } from './error.js';
import { CONFIG_FILE, CONFIG_MAX_BYTES, detectedNotice } from './file.js';
import { cachedConfig, saveConfigCache } from './cache.js';

export { ConfigError } from './error.js';
export { CONFIG_FILE, CONFIG_MAX_BYTES } from './file.js';

// Finding and reading checkroom.yaml, without the parser: a workspace without one runs on
// the preset's defaults and never loads yaml or zod; config-parse.ts (the parser and schema) is
// imported only when the file is there.

/** The configuration of a workspace without checkroom.yaml: the default preset (or `preset`) and defaults. */
export const defaultConfig = (preset: string = DEFAULT_PRESET): WorkspaceConfig => ({
  file: null,
  preset,
  pipeline: presetOf(preset).pipeline(),
  agents: {},
  limits: { ...DEFAULT_LIMITS, caps: { ...DEFAULT_LIMITS.caps } },
  breaker: { ...DEFAULT_BREAKER },
  sources: { ...DEFAULT_SOURCES },
});

/** Reads `<root>/checkroom.yaml`; a missing file means the defaults. With `cache`, the config
 *  parsed last time from the same text is used (config-cache.ts), and kept when `write`. */
export const loadConfig = async (root: string, cache?: { write: boolean }): Promise<WorkspaceConfig> => {
  const file = join(root, CONFIG_FILE);
  let text: string;
  try {
    const r = await readTextCapped(file, CONFIG_MAX_BYTES);
    if (!r.ok) {
      throw new ConfigError({
        file,
        line: null,
        column: null,
        problem: `the file is ${formatBytes(r.size)} (${r.size} bytes), over checkroom's ${formatBytes(r.cap)} cap for checkroom.yaml, and was not read`,
        expected: `a config under ${formatBytes(r.cap)}: a pipeline definition is a few KB; look for a generated or pasted blob in it`,
      });
    }
    text = r.text;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ConfigError({ file, line: null, column: null, problem: code === 'ENOTREG' ? 'it is not a regular file (a FIFO, a socket or a device)' : `cannot read the file (${code ?? (e as Error).message})`, expected: 'a readable file' });
    // A config under the wrong name would otherwise be ignored without a word.
    const yml = join(root, 'checkroom.yml');
    if (await stat(yml).then(() => true, () => false)) {
      throw new ConfigError({ file: yml, line: null, column: null, problem: 'checkroom reads checkroom.yaml, not checkroom.yml', expected: 'the file renamed to checkroom.yaml' });
    }
    const detected = await detectPreset(root);
    return detected ? { ...defaultConfig(detected), ...detectedNotice(detected) } : defaultConfig();
  }
  const detected = await detectPreset(root);
  const kept = cache ? cachedConfig(root, file, text, detected) : null;
  if (kept) return kept;
  // zod and yaml are loaded only here, for a checkroom.yaml not parsed before.
  const { parseConfig } = await import('./parse.js');
  const config = parseConfig(text, file, detected);
  if (cache?.write) await saveConfigCache(root, file, text, detected, config);
  return config;
};
