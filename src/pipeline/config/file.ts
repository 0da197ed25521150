import type { WorkspaceConfig } from './types.js';
import { presetOf } from '../presets/index.js';

// What both the light read (config-load.ts) and the parser (config-parse.ts) know of
// checkroom.yaml: its name, its size cap, and how a detected layout is said.

export const CONFIG_FILE = 'checkroom.yaml';

/** A pipeline definition is a few KB; 1 MB leaves room for long unit lists and comments
 *  while a generated or pasted blob (a 55 MB file took 1.8 GB to parse)
 *  is refused before a byte of it is read. */
export const CONFIG_MAX_BYTES = 1024 * 1024;

/** The sentence that says a layout chose the preset. */
export const detectedNotice = (name: string): Pick<WorkspaceConfig, 'presetDetected'> => {
  const notice = presetOf(name).layout?.notice;
  return notice ? { presetDetected: notice } : {};
};
