import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PRESETS } from './presets/index.js';

// A workspace whose checkroom.yaml names no preset (or that has none) is read with the preset
// its layout shows: a gate-file workflow was read as an empty book.

export { DETECTED_GATES, GATE_LAYOUT_DIR } from './presets/gates.js';

const isDir = (abs: string): Promise<boolean> => stat(abs).then((st) => st.isDirectory(), () => false);

/** The name of the first registered preset whose layout directory the workspace has, for a config that names no preset. */
export async function detectPreset(root: string): Promise<string | null> {
  for (const p of PRESETS.values()) if (p.layout && (await isDir(join(root, p.layout.dir)))) return p.name;
  return null;
}
