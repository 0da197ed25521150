import { describe, expect, it } from 'vitest';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { ESLint } from 'eslint';
import fc from 'fast-check';
import stringWidth from 'string-width';
import { sanitize, sanitizeLine } from '../../../src/text/sanitize.js';
import { columnLabels, columnWidth, drawnLength, fit, fitStart, pad } from '../../../src/text/layout.js';
import { wrapLine } from '../../../src/text/wrap.js';
import { NO_COLOR_THEME } from '../../../src/text/theme.js';
import { ThemeContext } from '../../../hooks/use-theme.js';
import { Line, T } from '../../../components/Styled.js';
import { REPO } from '../../helpers/workspace.js';
import { EVIL, RAW } from '../../torture/evil-workspace.js';

// Issue 9 item 4, sanitize once where text is drawn: Styled's T and Line escape every string
// they draw, the layout helpers measure and cut the same escaped form, escaping twice changes
// nothing, and the lint keeps components from drawing past that edge.

const ESCAPED = sanitizeLine(EVIL);

// Control characters and the lookalikes sanitize escapes, mixed with printable text.
const hostile = fc
  .array(fc.oneof(fc.string(), fc.constantFrom('\u001b', '\r', '\b', '\u0007', '\n', '\t', '\u009b', '\u202e', '\u2028', '\\e', '\\x1b', EVIL)))
  .map((parts) => parts.join(''));

describe('sanitize', () => {
  it('is idempotent: text escaped once is drawn unchanged by every later layer', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        expect(sanitizeLine(sanitizeLine(s))).toBe(sanitizeLine(s));
        expect(sanitize(sanitize(s))).toBe(sanitize(s));
        expect(sanitizeLine(sanitize(s))).toBe(sanitizeLine(s));
        expect(RAW.test(sanitizeLine(s))).toBe(false);
      }),
    );
  });
});

describe('the layout helpers work on the drawn (escaped) form', () => {
  it('fit, pad, fitStart, wrapLine and columnLabels return escaped text', () => {
    for (const out of [fit(`a${EVIL}b`, 200), pad(EVIL, 80), fitStart(`x/${EVIL}`, 200), ...wrapLine(`a ${EVIL} b`, 30), ...columnLabels([EVIL, `s${EVIL}`])]) {
      expect(RAW.test(out)).toBe(false);
    }
    expect(fit(`a${EVIL}b`, 200)).toBe(`a${ESCAPED}b`);
    expect(wrapLine(`  ${EVIL}`, 200)).toEqual([`  ${ESCAPED}`]);
  });

  it('measures what is drawn: a cut or padded hostile name fills exactly its columns', () => {
    const name = `ch02${EVIL}`;
    expect(stringWidth(fit(name, 20))).toBe(20);
    expect(fit(name, 20)).toBe(`ch02${ESCAPED.slice(0, 15)}…`);
    expect(stringWidth(pad(name, 80))).toBe(80);
    expect(columnWidth([name], 4, 200)).toBe(stringWidth(`ch02${ESCAPED}`));
    expect(drawnLength(name)).toBe(`ch02${ESCAPED}`.length);
    expect([...fitStart(name, 10)].length).toBe(10);
    for (const row of wrapLine(`  ${name} and more`, 24)) expect(stringWidth(row)).toBeLessThanOrEqual(24);
  });

  it('text cut once and drawn again is unchanged (no double escaping)', () => {
    const once = fit(`a${EVIL}`, 30);
    expect(fit(once, 30)).toBe(once);
    expect(pad(pad(EVIL, 60), 60)).toBe(pad(EVIL, 60));
  });
});

describe('the render edge: T and Line', () => {
  it('draw every string child escaped, at any depth of T inside Line, in arrays and conditionals', () => {
    // A short hostile text, so that each row fits the fake terminal uncut.
    const bad = '\u001b]0;x\u0007\r\u009b';
    const shown = sanitizeLine(bad);
    const items = [bad, `b${bad}`];
    const r = render(
      <ThemeContext.Provider value={NO_COLOR_THEME}>
        <Box flexDirection="column">
          <Line>
            {bad}
            <T tok="warn">{`t${bad}`}</T>
          </Line>
          <Line>
            {items.map((s) => (
              <T key={s}>{s}</T>
            ))}
          </Line>
          <Line>
            {items}
            {items.length ? `c${bad}` : null}
            {7}
          </Line>
          <T>{EVIL}</T>
        </Box>
      </ThemeContext.Provider>,
    );
    const frame = r.lastFrame() ?? '';
    r.unmount();
    expect(RAW.test(frame)).toBe(false);
    expect(frame.split('\n').slice(0, 3)).toEqual([`${shown}t${shown}`, `${shown}b${shown}`, `${shown}b${shown}c${shown}7`]);
    expect(frame.replace(/\n/g, '')).toContain(ESCAPED);
  });
});

describe('the lint keeps components behind the render edge', () => {
  const lint = async (code: string, filePath: string) => {
    const eslint = new ESLint({ cwd: REPO });
    const [result] = await eslint.lintText(code, { filePath: `${REPO}/${filePath}` });
    return result.messages.map((m) => `${m.ruleId}: ${m.line}`);
  };

  it('flags Ink Text, a hand-made escape and text in a fragment in a component', async () => {
    const code = [
      "import { Text } from 'ink';",
      "import { sanitizeLine } from '../src/text/sanitize.js';",
      'export function Bad({ s }: { s: string }) {',
      '  return (',
      '    <>',
      '      raw {s}',
      '      <Text>{sanitizeLine(s)}</Text>',
      '    </>',
      '  );',
      '}',
      '',
    ].join('\n');
    expect(await lint(code, 'components/Bad.tsx')).toEqual(['no-restricted-imports: 1', 'no-restricted-imports: 2', 'no-restricted-syntax: 5', 'no-restricted-syntax: 6']);
  }, 60_000);

  it('lets Styled.tsx use Text, src/ escape for its own sinks, and components draw with T and Line', async () => {
    const styled = "import { Text } from 'ink';\nexport const X = ({ s }: { s: string }) => <Text>{s}</Text>;\n";
    expect(await lint(styled, 'components/Styled.tsx')).toEqual([]);
    expect(await lint("import { sanitizeLine } from '../sanitize.js';\nexport const say = (s: string): string => sanitizeLine(s);\n", 'src/cli/say.ts')).toEqual([]);
    expect(await lint("import { Text } from 'ink';\nexport const t = Text;\n", 'src/ui-x.ts')).toEqual(['no-restricted-imports: 1']);
    const good = "import { Line, T } from './Styled.js';\nexport const Good = ({ s }: { s: string }) => (\n  <Line>\n    {s} <T>{s}</T>\n  </Line>\n);\n";
    expect(await lint(good, 'components/Good.tsx')).toEqual([]);
  }, 60_000);
});
