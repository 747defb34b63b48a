import { defineConfig } from 'vite';

// The server (makruk serve) serves web/dist and answers every non-API path with
// index.html, so absolute asset paths work for /p/CODE too.
export default defineConfig({
  base: '/',
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
