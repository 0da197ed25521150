import type { Lang } from '../types.js';
import type { EntryWhy, Sign, SignOf, Source, Why, WhyOf } from './why.js';
import { EN } from './en.js';
import { ZH } from './zh.js';
import { JA } from './ja.js';

// One catalog per language, one function per kind of finding. The English catalog gives the
// exact sentences the UI and `--json` have always shown.

export interface Catalog {
  why: { [K in Why['k']]: (w: WhyOf<K>, say: (w: Why) => string) => string };
  sign: { [K in Sign['k']]: (s: SignOf<K>) => string };
  /** How a marker-shaped last line differs from the marker (issue 8 item 6). */
  shape: { [K in WhyOf<'marker_shaped'>['shape']]: (w: WhyOf<'marker_shaped'>) => string };
  entry: { [K in EntryWhy['k']]: (e: Extract<EntryWhy, { k: K }>) => string };
  source: (s: Source) => string;
  /** FileFacts.error sentences (file-facts.ts), said again in this language. */
  error: (e: string) => string;
}

const CATALOGS: Record<Lang, Catalog> = { en: EN, zh: ZH, ja: JA };

export function say(why: Why, lang: Lang = 'en'): string {
  const c = CATALOGS[lang];
  const rec = (w: Why): string => (c.why[w.k] as (w: Why, say: (w: Why) => string) => string)(w, rec);
  return rec(why);
}

export const saySign = (sign: Sign, lang: Lang = 'en'): string => (CATALOGS[lang].sign[sign.k] as (s: Sign) => string)(sign);
export const sayEntry = (e: EntryWhy, lang: Lang = 'en'): string => (CATALOGS[lang].entry[e.k] as (e: EntryWhy) => string)(e);
export const saySource = (s: Source, lang: Lang = 'en'): string => CATALOGS[lang].source(s);
