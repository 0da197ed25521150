import { stat } from 'node:fs/promises';
import { join } from 'node:path';

// A workspace whose checkroom.yaml names no preset (or that has none) is read with the preset
// its layout shows (issue 8 item 6): a gate-file workflow was read as an empty book.

/** The layout a gate-file workflow leaves (DOMAIN.md section 7). */
export const GATE_LAYOUT_DIR = '.claude/context/history/gates';

export const DETECTED_GATES = `no preset in checkroom.yaml: the gate-file layout (${GATE_LAYOUT_DIR}/) was found, so the gates preset is used — write preset: gates (or preset: book) to choose`;

/** `gates` when the workspace has a gate-file layout, for a config that names no preset. */
export const detectPreset = async (root: string): Promise<'gates' | null> =>
  (await stat(join(root, GATE_LAYOUT_DIR)).then((st) => st.isDirectory(), () => false)) ? 'gates' : null;
