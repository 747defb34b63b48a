// Writes a brotli (.br) and a gzip (.gz) copy beside each compressible file of
// the built client, so that the server can send whichever the browser takes
// without compressing on every request. A copy is kept only when it is smaller.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const root = process.argv[2] ?? 'dist';
const compressible = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.webmanifest', '.txt', '.wasm', '.nnue']);

function* files(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else if (compressible.has(path.extname(e.name))) yield p;
  }
}

let raw = 0;
let br = 0;
for (const file of files(root)) {
  const data = fs.readFileSync(file);
  const copies = {
    '.br': zlib.brotliCompressSync(data, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
    }),
    '.gz': zlib.gzipSync(data, { level: 9 }),
  };
  for (const [ext, out] of Object.entries(copies)) {
    if (out.length < data.length) fs.writeFileSync(file + ext, out);
    else fs.rmSync(file + ext, { force: true });
  }
  raw += data.length;
  br += Math.min(copies['.br'].length, data.length);
}
console.log(`compress: ${raw} bytes, ${br} with brotli`);
