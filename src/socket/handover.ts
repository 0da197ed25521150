import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { lockPath } from '../run/supervisor/lock.js';
import { openControl } from './client.js';

// Handover without loss. A driver whose terminal vanished without a close
// (roaming, NAT: no RST) keeps the driver lock until TCP gives up, ~15 minutes, and killing it
// cancels its agents. Through the control socket — same user, 0700 directory, 0600 token — a
// new instance on this host asks it to hand over: it leaves its runs running (journalled in
// the session stop, reason `handover`, with autopilot as it was) and exits; its lock goes with
// it and the asker, or the next checkroom, drives and adopts the runs.

export type HandoverAnswer = { ok: true; pid: number; released: boolean } | { ok: false; why: string };

const holderPid = (root: string): number | null => {
  try {
    const v = JSON.parse(readFileSync(lockPath(root), 'utf8')) as { pid?: unknown };
    return typeof v.pid === 'number' ? v.pid : null;
  } catch {
    return null;
  }
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Ask the control room on `dir` to hand over, then wait (at most `waitMs`) until its lock is
 * no longer its own: `released` false means it accepted but had not left in time.
 */
export async function askHandover(dir: string, o: { env?: NodeJS.ProcessEnv; timeoutMs?: number; waitMs?: number } = {}): Promise<HandoverAnswer> {
  const root = resolve(dir);
  const opened = await openControl(root, 'handover', { timeoutMs: o.timeoutMs ?? 5000, env: o.env });
  if (!opened.ok) return { ok: false, why: opened.why };
  opened.sock.destroy();
  const pid = opened.header.pid ?? -1;
  const until = Date.now() + (o.waitMs ?? 30_000);
  while (holderPid(root) === pid) {
    if (Date.now() >= until) return { ok: true, pid, released: false };
    await sleep(100);
  }
  return { ok: true, pid, released: true };
}

/** When the driver's terminal last sent a key (epoch ms), from its `ping`; null when it has not said. */
export async function driverLastInput(dir: string, o: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<number | null> {
  const opened = await openControl(resolve(dir), 'ping', { timeoutMs: o.timeoutMs ?? 1000, env: o.env });
  if (!opened.ok) return null;
  opened.sock.destroy();
  const h = opened.header;
  return h.role === 'driver' && typeof h.lastInputAt === 'number' ? h.lastInputAt : null;
}

/** "silent 14 min" from the last key's time; null below a minute (an operator reading the screen is not silent). */
export function silenceWords(lastInputAt: number | null, now: number): string | null {
  if (lastInputAt === null) return null;
  const min = Math.floor((now - lastInputAt) / 60_000);
  if (min < 1) return null;
  return min < 120 ? `silent ${min} min` : `silent ${Math.floor(min / 60)} h`;
}
