import type { WorkspaceState } from '../types.js';
import { stateOf, type Sources } from '../workspace.js';
import { presetOf } from '../pipeline/presets/index.js';
import { deriveInputOf } from '../pipeline/presets/marker-layout.js';
import { LiveDerivation } from '../state/live-derive.js';
import { todoViewFrom } from '../sources/level2.js';
import type { Applied } from './apply-events.js';

// The live view's state from its sources: the same as `stateOf` (workspace.ts), kept by delta
// between file events. Gate-file workflows are small and derived whole.

export interface LiveDeriver {
  /** `change` null: the sources were read again from scratch. */
  derive(src: Sources, running: ReadonlySet<string>, change: Applied | null): WorkspaceState;
}

export function liveDeriver(): LiveDeriver {
  let d: LiveDerivation | null = null;
  return {
    derive(src, running, change) {
      // A preset read whole (gate files) is derived whole; a marker layout by delta.
      if (!presetOf(src.config.preset).source.incremental) return stateOf(src, running);
      const input = deriveInputOf(src, running);
      const state = d && change ? d.update(input, change) : (d = new LiveDerivation(input)).state;
      const withPreset = { ...state, preset: src.config.preset };
      if (!src.todos) return withPreset;
      // The todo view reads only the cells of units its todos name: giving it those alone
      // gives the same view as all cells, in O(todos) instead of O(cells).
      const named = new Set<string>();
      for (const t of src.todos.todos) if (t.unit) named.add(t.unit);
      const derivation = d;
      return { ...withPreset, todos: todoViewFrom(src.todos, src.config, [...named].flatMap((u) => derivation.cellsOf(u))) };
    },
  };
}
