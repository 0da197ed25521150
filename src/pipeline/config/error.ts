// A config problem, with the place in checkroom.yaml that caused it. The CLI maps it to
// exit code 2. Its own module so that reading a workspace without checkroom.yaml never
// loads the parser.

export class ConfigError extends Error {
  readonly file: string;
  /** 1-based; null when the problem has no single place in the file. */
  readonly line: number | null;
  readonly column: number | null;
  readonly expected: string;
  readonly problem: string;

  constructor(o: { file: string; line: number | null; column: number | null; problem: string; expected: string }) {
    super(`${o.line === null ? o.file : `${o.file}:${o.line}:${o.column}`}: ${o.problem} (expected ${o.expected})`);
    this.name = 'ConfigError';
    this.file = o.file;
    this.line = o.line;
    this.column = o.column;
    this.expected = o.expected;
    this.problem = o.problem;
  }
}
