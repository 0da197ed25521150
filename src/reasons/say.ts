import type { Lang } from '../types.js';
import type { EntryWhy, Sign, SignOf, Source, Why, WhyOf } from './why.js';
import type { CutEvent } from '../triage/cut-evidence.js';
import { EN } from './en.js';
import { ZH } from './zh.js';
import { JA } from './ja.js';

// One catalog per language, one function per kind of finding. The English catalog gives the
// exact sentences the UI and `--json` have always shown.

export interface Catalog {
  why: { [K in Why['k']]: (w: WhyOf<K>, say: (w: Why) => string, facts: (w: Why) => string) => string };
  /**
   * The facts of the findings whose advice is "back up and redo", without that advice: a plan
   * entry that decides otherwise says its own advice after them.
   */
  facts: { [K in 'unreadable' | 'short' | 'cut' | 'writer_cut']: (w: WhyOf<K>) => string };
  /** How a writer was cut off, as the cut reason and the keep warning say it. */
  cutEvent: { [K in CutEvent]: string };
  sign: { [K in Sign['k']]: (s: SignOf<K>) => string };
  /** How a marker-shaped last line differs from the marker. */
  shape: { [K in WhyOf<'marker_shaped'>['shape']]: (w: WhyOf<'marker_shaped'>) => string };
  entry: { [K in EntryWhy['k']]: (e: Extract<EntryWhy, { k: K }>) => string };
  source: (s: Source) => string;
  /** FileFacts.error sentences (file-facts.ts), said again in this language. */
  error: (e: string) => string;
}

const CATALOGS: Record<Lang, Catalog> = { en: EN, zh: ZH, ja: JA };

export function say(why: Why, lang: Lang = 'en'): string {
  const c = CATALOGS[lang];
  type Say = (w: Why) => string;
  const facts: Say = (w) => {
    if (w.k === 'unreadable' || w.k === 'short' || w.k === 'cut' || w.k === 'writer_cut') return (c.facts[w.k] as (w: Why) => string)(w);
    // The wrapped finding is said without its advice too.
    if (w.k === 'marker_not_last') return c.why.marker_not_last(w, facts, facts);
    return rec(w);
  };
  const rec: Say = (w) => (c.why[w.k] as (w: Why, say: Say, facts: Say) => string)(w, rec, facts);
  return rec(why);
}

export const saySign = (sign: Sign, lang: Lang = 'en'): string => (CATALOGS[lang].sign[sign.k] as (s: Sign) => string)(sign);
export const sayEntry = (e: EntryWhy, lang: Lang = 'en'): string => (CATALOGS[lang].entry[e.k] as (e: EntryWhy) => string)(e);
export const saySource = (s: Source, lang: Lang = 'en'): string => CATALOGS[lang].source(s);
