import { BOOK } from './book.js';
import { GATES } from './gates.js';
import type { Preset } from './types.js';

export type { Preset, PresetDetail, PresetHas, PresetReport, PresetSource, PresetWords, ReadOnlyRecovery, ReportDraw, Sources } from './types.js';

// The registry of pipeline families (docs/architecture.md, How to add). A new family is one
// file exporting a `Preset` and one line in BUILT_IN; checkroom.yaml's `preset:` is a name from here or the
// path of a preset file (a pipeline definition read by parsePresetFile in config-parse.ts and run with the marker layout, marker-layout.ts).

const BUILT_IN: Preset[] = [
  BOOK,
  GATES,
];

const registry = new Map<string, Preset>(BUILT_IN.map((p) => [p.name, p]));

/** Every registered preset by name. */
export const PRESETS: ReadonlyMap<string, Preset> = registry;

/** The preset of a workspace whose checkroom.yaml names none and whose layout selects none. */
export const DEFAULT_PRESET = BOOK.name;

/** Adds a preset under its name (a plug-in, or a test's own family); a name already taken is refused. */
export function registerPreset(p: Preset): void {
  if (registry.has(p.name)) throw new Error(`a preset named "${p.name}" is already registered`);
  registry.set(p.name, p);
}

/** `preset:` values that name a preset file rather than a registered preset. */
export const isPresetFile = (name: string): boolean => /\.ya?ml$/i.test(name);

/**
 * The preset behind a name a config or a state carries. A preset file's pipeline is in the
 * config already; its source, what it has and its words are the marker layout's (the book's).
 * An absent name (a state built by hand) is the default preset.
 */
export function presetOf(name: string | undefined): Preset {
  const p = registry.get(name ?? DEFAULT_PRESET);
  if (p) return p;
  if (name !== undefined && isPresetFile(name)) return { ...BOOK, name };
  throw new Error(`unknown preset "${name}": one of ${[...registry.keys()].join(', ')}, or the path of a preset .yaml file`);
}
