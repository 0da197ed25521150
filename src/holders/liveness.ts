import { statSync } from 'node:fs';
import { join } from 'node:path';
import { fileKey, scanHolders, type Holder, type HolderScan } from './holders.js';
import { procSource, type ProcSource } from './proc-source.js';

// The one answer to "is this file live, and who holds it", asked before a
// back-up, keep, redo or relaunch is offered, again when it is confirmed, by the CLI and by
// autopilot. A file is live when a process on this machine holds it open for writing
// (whoever launched it: a writer checkroom did not start pauses as quietly as one it did),
// or when it changed within the quiet window: the only sign of a writer on another host or
// behind NFS, where /proc shows nothing.

export const DEFAULT_QUIET_WINDOW_MS = 3_000;

export interface WriterHolder extends Holder {
  /** Its process group is a run checkroom launched (this instance or another, by the journal). */
  ours: boolean;
}

interface Common {
  path: string;
  /** Processes that could not be checked (other users', when not root); said, never assumed idle in silence. */
  unchecked: number;
}

export type Liveness =
  | (Common & { live: false })
  | (Common & { live: true; kind: 'held'; holders: WriterHolder[] })
  | (Common & { live: true; kind: 'recent'; agoMs: number; quietMs: number });

export type LiveFile = Extract<Liveness, { live: true }>;

/** The file as stat saw it, or null when there is none (nothing to hold, nothing to lose). */
export interface FileStamp {
  key: string;
  mtimeMs: number;
}

/** Pure: the verdict on one file from the holders scan, the file's stamp and the clock that stamps files. */
export function decideLive(path: string, file: FileStamp | null, scan: HolderScan, nowMs: number, quietMs: number, ourGroups: ReadonlySet<number>): Liveness {
  const unchecked = scan.unchecked;
  if (!file) return { path, unchecked, live: false };
  const holders = scan.writers.get(file.key);
  if (holders?.length) return { path, unchecked, live: true, kind: 'held', holders: holders.map((h) => ({ ...h, ours: ourGroups.has(h.pgrp) })) };
  // Within the window either way: a clock a little behind (NFS, another host) shows a fresh
  // write in the future; far in the future says nothing about now.
  const agoMs = nowMs - file.mtimeMs;
  if (quietMs > 0 && agoMs < quietMs && -agoMs < quietMs) return { path, unchecked, live: true, kind: 'recent', agoMs: Math.max(0, agoMs), quietMs };
  return { path, unchecked, live: false };
}

export interface CheckOptions {
  quietMs: number;
  /** Process groups of the runs checkroom knows (their pids lead their groups). */
  ours?: ReadonlySet<number>;
  source?: ProcSource;
}

let shared: ProcSource | null = null;
const defaultSource = (): ProcSource => (shared ??= procSource());

const stampOf = (abs: string): FileStamp | null => {
  try {
    const st = statSync(abs, { bigint: true });
    return st.isFile() ? { key: fileKey(st.dev, st.ino), mtimeMs: Number(st.mtimeMs) } : null;
  } catch {
    return null;
  }
};

/**
 * Liveness of each workspace-relative path, from one /proc pass for all of them (scan once
 * per decision, index by dev:ino: a refresh of 50k files still reads /proc once).
 */
export function checkLive(root: string, paths: readonly string[], opts: CheckOptions): Map<string, Liveness> {
  const source = opts.source ?? defaultSource();
  const stamps = new Map(paths.map((p) => [p, stampOf(join(root, p))] as const));
  const keys = new Set([...stamps.values()].flatMap((s) => (s ? [s.key] : [])));
  const scan = scanHolders(source, keys);
  const now = source.nowMs();
  const ours = opts.ours ?? new Set<number>();
  return new Map(paths.map((p) => [p, decideLive(p, stamps.get(p) ?? null, scan, now, opts.quietMs, ours)]));
}

/** The live ones of checkLive, or an empty list. */
export const liveOnly = (m: ReadonlyMap<string, Liveness>): LiveFile[] => [...m.values()].filter((l): l is LiveFile => l.live);
