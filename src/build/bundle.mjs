// Bundles the compiled CLI into dist/bundle/ (npm run build). Why: the control room's first
// frame was 1.8 s on the demo, 70% of it Node resolving and linking ~400 ESM/CJS modules
// (measured with --cpu-prof); one bundled file starts in a fraction of that. tsc still
// type-checks and emits dist/src for the tests; the bin points at the bundle.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// Ink's layout engine, yoga, loads its WebAssembly from a base64 data: URL with `fetch` when
// there is one: in Node that loads undici and runs a fetch before the first frame (~65 ms of
// the demo's ~350 ms to its first frame). Without fetch it decodes the
// same bytes itself. A yoga whose loader no longer reads this way fails the build, so the
// patch cannot silently stop applying.
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /yoga-layout[\\/]dist[\\/]binaries[\\/][^\\/]+\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const out = text.replaceAll('"function"!=typeof fetch', 'true');
      if (out === text) throw new Error(`${args.path}: yoga's wasm loader no longer tests for fetch; update src/build/bundle.mjs`);
      return { contents: out, loader: 'js' };
    });
  },
};

// Chunk names carry content hashes: start empty so old chunks do not pile up.
rmSync('dist/bundle', { recursive: true, force: true });

await build({
  entryPoints: { checkroom: 'dist/src/bin.js', 'start-demo': 'dist/src/demo/start.js' },
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
  // render then pays for prop checks and dev warnings (the first frame ran React in
  // development mode). The bundle is what operators run, so it is a production build.
  define: { 'process.env.NODE_ENV': '"production"' },
  // Less text to parse and compile at every start (the first frame waits for
  // the modules it needs). Names stay, so stack traces still read.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [yogaWithoutFetch],
  logLevel: 'warning',
});

// What `npm start` checks to skip a rebuild (src/build/fresh.mjs): the build's own time.
writeFileSync('dist/bundle/.built', `${new Date().toISOString()}\n`);
