// `2026-11-30 05:20`, local time: how checkpoint.md's "last updated" line, RESUME.md and the
// cell detail write a moment. One definition, so they always agree.

const pad2 = (n: number): string => String(n).padStart(2, '0');

export const formatMinute = (d: Date): string =>
  `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
