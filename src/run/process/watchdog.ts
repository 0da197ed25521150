import { statSync } from 'node:fs';

// The idle watchdog's memory, shared by every way a run is watched (docs/domain.md, Handling agent faults: the
// dangerous failure is the silent hang). Output is life, and so is any change in what the run
// leaves on disk — the step's output file growing, a cluster job's log growing — so an agent
// that writes its file without printing is not taken for a hung one (the
// local process group and the cluster job shared this by copy).

/** Size and mtime of the step's output: a change is liveness for the idle watchdog. */
export const outputSignature = (path: string | null): string => {
  if (!path) return '';
  try {
    const st = statSync(path);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
};

export class Liveness {
  private seen: number;
  private signature: string;

  /**
   * `look` reads what the run leaves on disk; `initial` is the signature taken as already
   * seen (default: what `look` says now, so only a later change counts).
   */
  constructor(
    private readonly look: () => string,
    at: number,
    initial: string = look(),
  ) {
    this.seen = at;
    this.signature = initial;
  }

  /** Output arrived, or the run is not yet to be watched (a job still queued). */
  touch(at: number): void {
    this.seen = at;
  }

  /** Look at the disk; a change counts as life at `at`. When life was last seen. */
  check(at: number): number {
    const now = this.look();
    if (now !== this.signature) {
      this.signature = now;
      this.seen = at;
    }
    return this.seen;
  }

  /** How long the run has been silent, after a look at the disk. */
  idleFor(at: number): number {
    return at - this.check(at);
  }
}
