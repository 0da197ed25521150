import type { RebuildFrom } from '../memory/sources.js';
import type { CutEvent } from '../triage/cut-evidence.js';

// The reasons checkroom gives (triage verdicts, plan entries, long-memory findings) as data,
// so the same finding can be said in the workspace's language: the UI and the JSON contract
// speak English (say(why, 'en')), RESUME.md speaks the language of its checkpoint.md.
// Quoted lines are stored already sanitized and shortened.

/** Why the end of a text looks cut off. */
export type Sign =
  | { k: 'fence' }
  | { k: 'heading'; line: string }
  | { k: 'empty_item'; line: string }
  | { k: 'comment'; line: string }
  | { k: 'dangling'; line: string }
  | { k: 'connector'; char: string; line: string }
  | { k: 'no_punct'; line: string }
  | { k: 'item_dangling'; line: string }
  | { k: 'item_connector'; char: string; line: string }
  | { k: 'item_unclosed'; closed: number; of: number; noEol: boolean; line: string };

/** Why a long-memory entry should exist although it does not. */
export type EntryWhy =
  | { k: 'claimed' }
  | { k: 'later_exists'; path: string }
  | { k: 'batch_ran'; deps: string[]; batch: number };

export interface Source {
  from: RebuildFrom;
  source: string | null;
}

export type Why =
  // Triage of one artifact (docs/domain.md, Half-products).
  | { k: 'unreadable'; error: string }
  | { k: 'short'; chars: number; limit: number }
  | { k: 'cut'; chars: number; sign: Sign; atLeast?: true }
  | { k: 'clean'; chars: number; line: string; atLeast?: true }
  // The journal is evidence: its writer was cut off and the file has not changed since.
  | { k: 'writer_cut'; event: CutEvent; at: number; time: string; attempt: number; chars: number; atLeast?: true }
  // The last line looks like a marker but is not this step's: another
  // step's marker, the marker inline at the end of prose, in the wrong case, or bare.
  | { k: 'marker_shaped'; shape: 'other' | 'inline' | 'case' | 'bare'; chars: number; line: string; expected: string; atLeast?: true }
  | { k: 'suspicious'; body: number; min: number }
  | { k: 'marker_not_last'; then: Why }
  // Plan entries.
  | { k: 'phase_missing'; phase: number; name: string; missing: string[]; started: boolean }
  | { k: 'blocked'; unit: string; step: string; failed: boolean; held: string[]; waits: string[]; cause?: string }
  | { k: 'rebuild_entry'; unit: string; file: string; src: Source; because: EntryWhy }
  | { k: 'at_path'; path: string; then: Why }
  // A half-product that cannot be redone yet: the finding without its advice, and what it waits on.
  | { k: 'waits_first'; path: string; then: Why; waits: string[] }
  | { k: 'ready'; deps: string[] }
  // Long-memory integrity.
  | { k: 'mem_absent'; file: string }
  | { k: 'mem_unreadable'; file: string; error: string }
  | { k: 'mem_empty'; file: string; titled: boolean }
  | { k: 'mem_cut'; file: string; sign: Sign }
  | { k: 'entry_empty'; unit: string; file: string }
  | { k: 'entry_cut'; unit: string; file: string; sign: Sign }
  | { k: 'no_entry'; unit: string; file: string; because: EntryWhy };

export type WhyOf<K extends Why['k']> = Extract<Why, { k: K }>;
export type SignOf<K extends Sign['k']> = Extract<Sign, { k: K }>;
