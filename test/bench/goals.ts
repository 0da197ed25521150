// Issue 10's goals, in one place: each part measures, shows its verdict in its own table and
// records it here, and run.ts ends with every goal in one table, so one run of
// `npm run bench` says which goals hold on this machine today and by how much the rest miss.

export interface GoalRow {
  figure: string;
  measured: string;
  goal: string;
  verdict: string;
}

const rows: GoalRow[] = [];

/** "goal met", or by how much `value` is over `max`: a ratio, or the difference in `unit`. */
export const verdict = (value: number, max: number, unit?: string): string => {
  if (value <= max) return 'goal met';
  if (unit) return `missed by ${(value - max).toFixed(0)} ${unit}`;
  // A near miss in percent: "missed by 1.00×" would read as met.
  return value / max < 1.1 ? `missed by ${((value / max - 1) * 100).toFixed(1)}%` : `missed by ${(value / max).toFixed(2)}×`;
};

/** Record a goal's figure and return its verdict for the part's own table. */
export function goal(figure: string, measured: string, limit: string, value: number, max: number, unit?: string): string {
  const v = verdict(value, max, unit);
  rows.push({ figure, measured, goal: limit, verdict: v });
  return v;
}

/** A goal that could not be measured in this run (a part skipped or a baseline under the clock's step). */
export const unmeasured = (figure: string, limit: string, why: string): void => void rows.push({ figure, measured: '—', goal: limit, verdict: why });

export function goalsTable(): string[] {
  if (rows.length === 0) return [];
  const met = rows.filter((r) => r.verdict === 'goal met').length;
  return [
    `## Goals (issues 10 and 18): ${met} of ${rows.length} met in this run`,
    '',
    '| figure | measured | goal | verdict |',
    '|---|---:|---|---|',
    ...rows.map((r) => `| ${r.figure} | ${r.measured} | ${r.goal} | ${r.verdict} |`),
    '',
  ];
}
