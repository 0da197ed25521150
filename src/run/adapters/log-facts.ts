import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { MAX_PARSE_CHARS } from './json-line.js';
import { emptyFacts, type AgentAdapter, type AgentFacts } from './types.js';

// The facts of a finished attempt, read from its log: the log keeps the raw stream
// whole, while the live lines are cut at the ring buffer's line limit. Read in chunks; a
// line longer than MAX_PARSE_CHARS keeps only its head (the fields that matter come first),
// so memory stays bounded whatever the agent wrote.

export async function readLogFacts(adapter: AgentAdapter, logPath: string, start: AgentFacts = emptyFacts()): Promise<AgentFacts> {
  let facts = start;
  let fh;
  try {
    fh = await open(logPath, 'r');
  } catch {
    return facts;
  }
  const decoder = new StringDecoder('utf8');
  let partial = '';
  let overLong = false;
  const take = (text: string): void => {
    const parts = text.split('\n');
    for (let i = 0; i < parts.length - 1; i++) {
      const line = overLong ? partial : partial + parts[i]!;
      facts = adapter.read(facts, line);
      partial = '';
      overLong = false;
    }
    const rest = parts[parts.length - 1]!;
    if (!overLong) {
      partial += rest;
      if (partial.length > MAX_PARSE_CHARS) {
        partial = partial.slice(0, 64 * 1024);
        overLong = true;
      }
    }
  };
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      take(decoder.write(buf.subarray(0, bytesRead)));
    }
    take(decoder.end());
    if (partial !== '') facts = adapter.read(facts, partial);
  } finally {
    await fh.close();
  }
  return facts;
}
