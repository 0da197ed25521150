// Lint: typescript-eslint's recommended rules, React's hook rules, and the house sizes
// (STYLE.md: split a file before ~300 lines; no function over ~80 lines without a
// reason said in it — an `eslint-disable-next-line max-lines-per-function -- why` comment).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const INK_TEXT = {
  name: 'ink',
  importNames: ['Text', 'Transform', 'Static'],
  message: 'Draw text with T or Line from components/Styled.tsx: they escape what they draw (docs/decisions/one-escaper-one-writer.md).',
};
const SANITIZE = {
  group: ['**/sanitize.js', '**/sanitize'],
  message:
    'Components pass raw text: T and Line (components/Styled.tsx) and the layout helpers (src/text/layout.ts) escape it once, where it is drawn (docs/decisions/one-escaper-one-writer.md).',
};

// Text in a fragment would reach an enclosing Text without T or Line.
const FRAGMENT_TEXT = [
  {
    selector: 'JSXFragment > JSXText[value=/\\S/]',
    message: 'Text in a fragment is drawn unescaped: put it in <T> or <Line> (components/Styled.tsx).',
  },
  {
    selector: "JSXFragment > JSXExpressionContainer:not([expression.type='JSXEmptyExpression'])",
    message:
      'A fragment may carry text past the render edge: put it in <T> or <Line>, or return an array of elements (components/Styled.tsx).',
  },
];

// stdout and stderr are written through src/cli/text-out.ts, which escapes.
const RAW_WRITES = [
  {
    selector: "CallExpression[callee.property.name='write'][callee.object.object.name='process'][callee.object.property.name=/^std(out|err)$/]",
    message: 'Write text through textOut or stderrOut (src/cli/text-out.ts): they escape what they write (docs/decisions/one-escaper-one-writer.md).',
  },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'demo-workspace/', '.ci/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'components/**/*.tsx', 'hooks/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    // Sanitize once where text is drawn (docs/decisions/one-escaper-one-writer.md): components/Styled.tsx is the render
    // edge — the only module that may draw with Ink's Text (or Transform / Static, which draw
    // their children as given), and it escapes every string it draws. Components and hooks
    // pass raw text and never escape by hand, and keep text out of fragments, where it would
    // reach an enclosing Text without passing through T or Line.
    files: ['src/**/*.{ts,tsx}', 'components/**/*.tsx', 'hooks/**/*.ts'],
    ignores: ['components/Styled.tsx'],
    rules: {
      'no-restricted-imports': ['error', { paths: [INK_TEXT], patterns: [SANITIZE] }],
      'no-restricted-syntax': [
        'error',
        ...FRAGMENT_TEXT,
      ],
    },
  },
  {
    // src/ sanitizes where text leaves for its own sinks (stdout, --json, the journal).
    files: ['src/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { paths: [INK_TEXT] }] },
  },
  {
    // Text reaches stdout and stderr only through src/cli/text-out.ts, which
    // escapes it, so no call site can forget (the Ink room draws through T and Line). A later
    // block replaces a rule's options rather than adding to them: FRAGMENT_TEXT again.
    files: ['src/**/*.{ts,tsx}'],
    ignores: ['src/cli/text-out.ts'],
    rules: {
      'no-console': 'error',
      'no-restricted-syntax': ['error', ...FRAGMENT_TEXT, ...RAW_WRITES],
    },
  },
  {
    files: ['src/build/*.mjs', 'test/**/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly' } },
  },
  {
    files: ['scripts/*.mjs'],
    languageOptions: { globals: { console: 'readonly', process: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly' } },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    // Tests plant terminal escapes and control characters and strip them again on purpose
    // (the terminal is an attack surface); in src/ each such regex says why.
    files: ['test/**/*.{ts,tsx}'],
    rules: { 'no-control-regex': 'off' },
  },
);
