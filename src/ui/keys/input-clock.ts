// When this process's terminal last sent a key. A driver whose client
// vanished without a close (roaming, NAT: no RST) looks alive — its pty still takes every
// write — so the only sign is silence: the control socket's `ping` says since when, and the
// read-only banner of a second instance shows it. One terminal per process, hence one clock.

// Until the first key, the session's start: a driver nobody ever typed into is as silent.
let last: number | null = Date.now() - Math.round(process.uptime() * 1000);

/** A key arrived (hooks/use-keys.ts, the one place stdin reaches the control room). */
export const noteInput = (at: number = Date.now()): void => void (last = at);

/** Epoch ms of the last key (the process's start before the first). */
export const lastInputAt = (): number | null => last;
