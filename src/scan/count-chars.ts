import { isAscii } from 'node:buffer';

// Characters, not bytes, not UTF-16 units: 60 Chinese characters are 60. A UTF-8
// character is one lead byte plus continuation bytes (10xxxxxx), so the count is
// bytes − continuation bytes. Counted four bytes at a time (SWAR) without decoding: the
// scan reads every artifact, and decoding to a string was most of its time (profiled in
// `npm run bench`: buffer.toString took 2.6 s of a 7 s scan at 50k files).

export function countChars(buf: Uint8Array): number {
  const len = buf.length;
  if (len === 0) return 0;
  if (isAscii(buf)) return len; // native, SIMD
  let n = len;
  let i = 0;
  const misalign = (4 - (buf.byteOffset & 3)) & 3;
  for (; i < len && i < misalign; i++) if ((buf[i] & 0xc0) === 0x80) n--;
  const words = (len - i) >>> 2;
  if (words > 0) {
    const u32 = new Uint32Array(buf.buffer, buf.byteOffset + i, words);
    for (let w = 0; w < words; w++) {
      const x = u32[w];
      // bit 7 set and bit 6 clear in each byte → a continuation byte
      let m = (x & 0x80808080) & ~((x << 1) & 0x80808080);
      m >>>= 7;
      m = (m & 0x00ff00ff) + ((m >>> 8) & 0x00ff00ff);
      n -= (m & 0xffff) + (m >>> 16);
    }
    i += words << 2;
  }
  for (; i < len; i++) if ((buf[i] & 0xc0) === 0x80) n--;
  return n;
}
