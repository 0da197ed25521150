// Types for scripts/cast-to-svg.mjs, so the tests that import it type-check (issue 19 items 4, 6).
export interface Cell {
  x: number;
  ch: string;
  w: number;
  fg: string | null;
  bg: string | null;
  bold: boolean;
  underline: boolean;
}
export interface CastFrame {
  t: number;
  hold: number;
  data: string;
}
export function screenOf(data: string, cols: number, rows: number): Cell[][];
export function parseCast(text: string): { header: { version: 2; width: number; height: number; title?: string }; frames: CastFrame[] };
export function castToSvg(text: string): string;
