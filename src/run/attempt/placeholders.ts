// Agent commands are argument arrays with placeholders (AgentDef.command). Values come from
// the workspace (unit ids, paths) and from earlier failures ({last_error} is agent output),
// so they are untrusted: each template element becomes exactly one argv element and a
// value is never re-parsed — no shell, no word splitting, no second expansion pass.

export const PLACEHOLDERS = ['unit', 'step', 'output', 'marker', 'workspace', 'attempt', 'backup', 'last_error', 'partial'] as const;

// {backup} and {last_error} have no value on a first, clean attempt; an empty argument is
// the honest expansion there. Every other placeholder missing a value is a caller bug.
// {partial} has one only when the attempt continues from a half-product.
const OPTIONAL: ReadonlySet<string> = new Set(['backup', 'last_error', 'partial']);

const KNOWN: ReadonlySet<string> = new Set(PLACEHOLDERS);

const TOKEN = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Expand placeholders in each element; throws naming an unknown placeholder or a missing value. */
export const expandArgv = (template: string[], values: Record<string, string>): string[] =>
  template.map((element) =>
    // A replacer function (not a replacement string) so `$&`, `$1`… in values stay literal,
    // and one pass so a value containing "{unit}" is not expanded again.
    element.replace(TOKEN, (_whole, name: string) => {
      if (!KNOWN.has(name)) {
        throw new Error(`unknown placeholder {${name}} in agent command; known: ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}`);
      }
      const value = Object.prototype.hasOwnProperty.call(values, name) ? values[name] : undefined;
      if (value === undefined) {
        if (OPTIONAL.has(name)) return '';
        throw new Error(`no value for placeholder {${name}} in agent command`);
      }
      return String(value);
    }),
  );

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

// Characters that would break or hijack a terminal line (see src/text/sanitize.ts).
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const ansiC = (arg: string): string => {
  let out = '';
  for (const c of arg) {
    const code = c.codePointAt(0)!;
    if (c === '\\') out += '\\\\';
    else if (c === "'") out += "\\'";
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else if (c === '\r') out += '\\r';
    else if (c === '\u001b') out += '\\e';
    else if (CONTROL.test(c)) out += code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
    else out += c;
  }
  return `$'${out}'`;
};

/** Quote one argument the way a POSIX shell (bash for `$'…'`) would read it back unchanged. */
export const quoteArg = (arg: string): string => {
  if (arg !== '' && SAFE.test(arg)) return arg;
  // Control characters go in ANSI-C quoting so the display stays on one line and cannot
  // drive the terminal, while still being the exact argument for a copy-paste into bash.
  if (CONTROL.test(arg)) return ansiC(arg);
  return `'${arg.replace(/'/g, `'\\''`)}'`;
};

/** The exact command as one line for the operator. Display only; never executed. */
export const describeArgv = (argv: string[]): string => argv.map(quoteArg).join(' ');
