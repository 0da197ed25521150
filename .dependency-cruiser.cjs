// The house's shape, checked by a machine (docs/architecture.md): imports run only downward —
// src (the domain, no React) <- hooks <- components <- the entries that render — with no
// cycle, and nothing but the CLI's own entry points reaches into src/cli/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-cycle', severity: 'error', comment: 'A cycle makes two modules one; break it.', from: {}, to: { circular: true } },
    {
      name: 'src-not-up',
      severity: 'error',
      comment: 'src/ is the domain: it never imports hooks/ or components/ (only the UI entries compose them).',
      from: { path: '^src/', pathNot: '^src/(ui-entry|ui-room|start-demo)\\.tsx?$' },
      to: { path: '^(hooks|components)/' },
    },
    { name: 'hooks-not-up', severity: 'error', comment: 'hooks glue src to components; they never import components.', from: { path: '^hooks/' }, to: { path: '^components/' } },
    {
      name: 'cli-is-an-edge',
      severity: 'error',
      comment: 'src/cli/ is the command-line edge: domain code and components never import it.',
      from: { path: '^(src|components|hooks)/', pathNot: '^src/(cli/|cli\\.ts$|start-demo\\.ts$|ui-entry\\.tsx?$|ui-room\\.ts$|ui-load\\.ts$)' },
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
