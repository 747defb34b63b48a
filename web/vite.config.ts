import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig, type Plugin } from 'vite';

// After the build: dist/precache.json lists every file of the built client (what the
// service worker caches so that the app works without a network), with a version made
// from their contents, and dist/sw.js gets that version in place of 'dev' (BUILD), so that
// each build is a new service worker with a cache of its own. (Vite does not hash sw.js:
// it must keep its name and its scope, /.)
function precache(): Plugin {
  let outDir = 'dist';
  const skip = (rel: string) => rel === 'sw.js' || rel === 'precache.json' || /\.(br|gz|map)$/.test(rel);
  return {
    name: 'makruk-precache',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle() {
      const files: string[] = [];
      const walk = (dir: string) => {
        for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
          const p = path.join(dir, e.name);
          if (e.isDirectory()) walk(p);
          else if (!skip(path.relative(outDir, p).split(path.sep).join('/'))) files.push(p);
        }
      };
      walk(outDir);
      const urls = files.map((p) => `/${path.relative(outDir, p).split(path.sep).join('/')}`).sort();
      const hash = createHash('sha256');
      for (const url of urls) hash.update(url).update('\0').update(fs.readFileSync(path.join(outDir, url))).update('\0');
      const version = hash.digest('hex').slice(0, 12);
      fs.writeFileSync(path.join(outDir, 'precache.json'), `${JSON.stringify({ version, files: urls })}\n`);
      const sw = path.join(outDir, 'sw.js');
      const text = fs.readFileSync(sw, 'utf8');
      const stamped = text.replace("const BUILD = 'dev';", `const BUILD = '${version}';`);
      if (stamped === text) throw new Error("sw.js: no \"const BUILD = 'dev';\" to write the build's version into");
      fs.writeFileSync(sw, stamped);
    },
  };
}

// The server (makruk serve) serves web/dist and answers every non-API path with
// index.html, so absolute asset paths work for /p/CODE too.
export default defineConfig({
  base: '/',
  plugins: [precache()],
  // The core's worker loads the emscripten glue with importScripts: a classic worker.
  worker: { format: 'iife' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/ws': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
