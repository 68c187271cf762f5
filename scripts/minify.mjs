// Minifies the JavaScript the package ships (the package's size budget is 75 KB gzipped, wasm included).
// Names stay readable where users see them: class and function names are kept.
// Usage: node scripts/minify.mjs FILE...   (each file is rewritten in place)
import { readFileSync, writeFileSync } from 'node:fs';
import { minify } from 'terser';

for (const file of process.argv.slice(2)) {
  const source = readFileSync(file, 'utf8');
  const result = await minify(source, {
    module: /\.mjs$|\/esm\//.test(file),
    ecma: 2020,
    compress: { passes: 2 },
    // Top-level names are private to their module unless exported (ES modules), or read as properties of
    // `exports` (CommonJS, whose modules run in a function of their own), so they can be shortened too.
    toplevel: true,
    mangle: true,
    keep_classnames: true,
    keep_fnames: true,
    format: { comments: false },
  });
  // Keep a shebang line (the command-line tool's).
  const shebang = source.startsWith('#!') ? source.slice(0, source.indexOf('\n') + 1) : '';
  writeFileSync(file, shebang + result.code.replace(/^#!.*\n/, ''));
}
