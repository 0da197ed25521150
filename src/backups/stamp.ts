// Backup names (docs/domain.md, Half-products, conservative strategy): `file.bak.{timestamp}`.
// checkroom writes `YYYYMMDD-HHMMSS` in local time, with `-1`, `-2`, … when two backups
// land in the same second; agents and older tools write `.bak.<epoch>` (seconds or ms),
// so both are read.

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `20261128-140312` for the local time of `now`. */
export const formatStamp = (now: Date): string =>
  `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;

export interface ParsedStamp {
  /** The text after `.bak.`, e.g. `20261128-140312-1` or `1764400000`. */
  raw: string;
  /** Milliseconds since the epoch, or null when the stamp is not a valid date. */
  ms: number | null;
  /** Collision counter (`-1`, `-2`, …); 0 for the first backup of that second. */
  seq: number;
}

const LOCAL = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(?:-(\d+))?$/;
const EPOCH = /^(\d{9,13})(?:-(\d+))?$/;

export function parseStamp(raw: string): ParsedStamp | null {
  const local = LOCAL.exec(raw);
  if (local) {
    const [y, mo, d, h, mi, s] = local.slice(1, 7).map(Number);
    const date = new Date(y, mo - 1, d, h, mi, s);
    const valid = date.getMonth() === mo - 1 && date.getDate() === d && date.getHours() === h;
    return { raw, ms: valid ? date.getTime() : null, seq: local[7] ? Number(local[7]) : 0 };
  }
  const epoch = EPOCH.exec(raw);
  if (epoch) {
    // 13 digits are milliseconds (Date.now()), fewer are seconds (date +%s).
    const n = Number(epoch[1]);
    return { raw, ms: epoch[1].length >= 13 ? n : n * 1000, seq: epoch[2] ? Number(epoch[2]) : 0 };
  }
  return null;
}

/** `name.bak.<stamp>` → the stamp, or null when `file` is not a backup of `name`. */
export function stampOf(name: string, file: string): ParsedStamp | null {
  const prefix = `${name}.bak.`;
  if (!file.startsWith(prefix)) return null;
  return parseStamp(file.slice(prefix.length));
}
