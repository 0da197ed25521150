import type { Cell, CellStatus } from '../types.js';
import type { GlyphSet } from './glyphs.js';
import type { Token } from './theme.js';
import { STATUS_TOKEN } from './theme.js';

// How a cell is drawn in a matrix (the control room's and `status`'s). A cell
// that cannot start because a cell it waits on failed or needs a human (`blockedBy`, set by
// reconcile and the gate derivation) would look exactly like work not started yet, so it has its
// own glyph, and the cell detail names what blocks it.

export type CellLook = keyof GlyphSet;

export const lookOf = (c: Pick<Cell, 'blockedBy'> & { status: CellStatus }): CellLook =>
  c.status === 'not_started' && c.blockedBy.length > 0 ? 'blocked' : c.status;

export const LOOK_TOKEN: Record<CellLook, Token> = { ...STATUS_TOKEN, blocked: 'warn' };
