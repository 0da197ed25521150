// The house's shape, checked by a machine (docs/architecture.md): imports run only downward —
// the domain (src/ minus src/ui/, no React) <- the UI layer (src/ui/: the control room's state,
// keys, views and terminal renderer, still no React) <- hooks <- components <- the entries that
// render (src/ui/entry/) — with no cycle, and nothing but the command line's own entry points
// reaching into src/cli/. test/house/layers.test.ts proves each rule can fail.
/** The modules that start a program: they may compose every layer. */
const ENTRIES = '^src/(cli\\.ts|bin\\.ts|demo/start\\.ts|ui/entry/)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycle', severity: 'error', comment: 'A cycle makes two modules one; break it.', from: {}, to: { circular: true } },
    {
      name: 'domain-not-up',
      severity: 'error',
      comment: 'src/ minus src/ui/ is the domain: it never imports the UI layer, hooks/ or components/ (only the entries compose them).',
      from: { path: '^src/', pathNot: [ENTRIES, '^src/ui/'] },
      to: { path: '^(src/ui|hooks|components)/' },
    },
    {
      name: 'ui-state-not-up',
      severity: 'error',
      comment: 'src/ui/ holds the control room without React: it never imports hooks/ or components/ (only src/ui/entry/ renders them).',
      from: { path: '^src/ui/', pathNot: ENTRIES },
      to: { path: '^(hooks|components)/' },
    },
    { name: 'hooks-not-up', severity: 'error', comment: 'hooks glue src to components; they never import components.', from: { path: '^hooks/' }, to: { path: '^components/' } },
    {
      name: 'cli-is-an-edge',
      severity: 'error',
      comment: 'src/cli/ is the command-line edge: domain code, the UI layer and components never import it.',
      from: { path: '^(src|components|hooks)/', pathNot: [ENTRIES, '^src/cli/'] },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(dist|test|node_modules)/' },
  },
};
