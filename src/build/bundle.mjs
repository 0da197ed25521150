// Bundles the compiled CLI into dist/bundle/ (npm run build). Why: the control room's first
// frame was 1.8 s on the demo, 70% of it Node resolving and linking ~400 ESM/CJS modules
// (measured with --cpu-prof); one bundled file starts in a fraction of that. tsc still
// type-checks and emits dist/src for the tests; the bin points at the bundle.
import { rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// Chunk names carry content hashes: start empty so old chunks do not pile up.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { checkroom: 'dist/src/bin.js', 'start-demo': 'dist/src/start-demo.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Native addon: stays a real package. react-devtools-core: ink loads it only with DEV=true.
  external: ['better-sqlite3'],
  alias: { 'react-devtools-core': './src/build/devtools-stub.mjs' },
  banner: { js: "import { createRequire as __checkroomRequire } from 'node:module'; const require = __checkroomRequire(import.meta.url);" },
  // React and its reconciler pick their development builds when NODE_ENV is unset: every
  // render then pays for prop checks and dev warnings (issue 10: the first frame ran React in
  // development mode). The bundle is what operators run, so it is a production build.
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});

// What `npm start` checks to skip a rebuild (src/build/fresh.mjs): the build's own time.
writeFileSync('dist/bundle/.built', `${new Date().toISOString()}\n`);
