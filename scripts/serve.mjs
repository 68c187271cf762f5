// The demo's static server: demo/ at /, the built package (js/dist) at /dist/. Local use only: it binds
// to 127.0.0.1 unless HOST says otherwise. PORT picks the port (default 8080; 0 picks a free one).
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const mounts = [
  ['/dist/', join(root, 'js', 'dist')],
  ['/', join(root, 'demo')],
];
const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

function resolve(urlPath) {
  for (const [prefix, dir] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const relative = normalize(decodeURIComponent(urlPath.slice(prefix.length)));
    const file = join(dir, relative === '.' || relative === '' ? 'index.html' : relative);
    // Never outside the mounted folder.
    if (file !== dir && !file.startsWith(dir + sep)) return undefined;
    try {
      const stat = statSync(file);
      if (stat.isDirectory()) return statSync(join(file, 'index.html')).isFile() ? join(file, 'index.html') : undefined;
      return stat.isFile() ? file : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

export function startServer(port = Number(process.env.PORT ?? 8080), host = process.env.HOST ?? '127.0.0.1') {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    let file;
    try {
      file = resolve(path);
    } catch {
      file = undefined;
    }
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(file ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(file ? 'method not allowed\n' : 'not found\n');
      return;
    }
    res.writeHead(200, {
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolvePromise(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer().catch((error) => {
    console.error(`cannot serve the demo: ${error.message}${error.code === 'EADDRINUSE' ? ' (set PORT to another port)' : ''}`);
    process.exit(1);
  });
  const { port } = server.address();
  console.log(`cuckoo-wasm demo: http://localhost:${port}/  (dedup page: http://localhost:${port}/dedup.html)`);
}
