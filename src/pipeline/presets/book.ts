import { bookPreset } from '../book-preset.js';
import { MARKER_HAS, MARKER_LAYOUT, MARKER_WORDS } from './marker-layout.js';
import type { Preset } from './types.js';

// The reference pipeline (docs/domain.md, The reference pipeline) read through the marker layout.

export const BOOK: Preset = {
  name: 'book',
  pipeline: bookPreset,
  source: MARKER_LAYOUT,
  has: MARKER_HAS,
  words: MARKER_WORDS,
};
