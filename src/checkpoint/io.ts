import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineDef } from '../types.js';
import type { CheckpointDoc } from './types.js';
import { writeFileAtomic } from '../fs/atomic-write.js';
import { formatBytes } from '../fs/read-capped.js';
import { emptyDoc, parseCheckpoint } from './parse.js';

// checkpoint.md on disk. A missing file is normal (recovery falls back to levels 2 and 3);
// an unreadable or binary one is reported as a warning on an empty doc so the scan goes on.

export const CHECKPOINT_MAX_BYTES = 4 * 1024 * 1024;

const failed = (source: string, message: string): CheckpointDoc => {
  const doc = emptyDoc();
  doc.warnings.push({ source, message });
  return doc;
};

export async function readCheckpoint(root: string, pipeline: PipelineDef, file = 'checkpoint.md'): Promise<CheckpointDoc | null> {
  const path = join(root, file);
  let bytes: Buffer;
  let size: number;
  try {
    const fh = await open(path, 'r');
    try {
      size = (await fh.stat()).size;
      const want = Math.min(size, CHECKPOINT_MAX_BYTES);
      bytes = Buffer.alloc(want);
      let off = 0;
      while (off < want) {
        const { bytesRead } = await fh.read(bytes, off, want - off, off);
        if (bytesRead === 0) break; // the file shrank while we read it
        off += bytesRead;
      }
      bytes = bytes.subarray(0, off);
    } finally {
      await fh.close();
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ENOENT') return null;
    return failed(file, `cannot read ${file}: ${e.code === 'EISDIR' ? 'it is a directory' : e.message}`);
  }
  if (bytes.includes(0)) return failed(file, `${file} contains NUL bytes; it looks binary and was not parsed`);
  const notes: string[] = [];
  if (size > CHECKPOINT_MAX_BYTES) {
    // Cut at the last newline so a half line (or half a UTF-8 sequence) is not parsed.
    const nl = bytes.lastIndexOf(0x0a);
    if (nl >= 0) bytes = bytes.subarray(0, nl + 1);
    // A status matrix is a few KB; past the cap only its head is parsed and the disk decides
    // the rest. The sentence says which file, its size, the cap, what to do.
    notes.push(
      `${file} is ${formatBytes(size)} (${size} bytes), over checkroom's ${formatBytes(CHECKPOINT_MAX_BYTES)} cap for this file; only the first ${CHECKPOINT_MAX_BYTES} bytes were read: rebuild it from the disk with checkroom checkpoint --write (the old one is backed up first)`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder('utf-8').decode(bytes);
    notes.push(`${file} is not valid UTF-8; bad bytes were replaced with U+FFFD`);
  }
  // TextDecoder drops the BOM by default; put it back so the layout records it.
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) text = '\uFEFF' + text;
  const doc = parseCheckpoint(text, pipeline, file);
  doc.warnings.unshift(...notes.map((message) => ({ source: file, message })));
  return doc;
}

export async function writeCheckpoint(root: string, text: string, file = 'checkpoint.md'): Promise<void> {
  await writeFileAtomic(join(root, file), text, [root]);
}
