// Bundles the extension (dist/extension.js) or, with --tests, the unit tests (out/test/).
// --production minifies and leaves out the source map (what `npm run package` ships).
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const args = new Set(process.argv.slice(2));
const production = args.has('--production');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  logLevel: 'warning',
};

if (args.has('--tests')) {
  const tests = readdirSync('test').filter((name) => name.endsWith('.test.ts'));
  await build({
    ...common,
    entryPoints: tests.map((name) => `test/${name}`),
    outdir: 'out/test',
    sourcemap: 'inline',
  });
} else {
  await build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    minify: production,
    sourcemap: !production,
  });
}
