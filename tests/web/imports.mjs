#!/usr/bin/env node
// The web client's modules import one another without a circle (static imports, dynamic
// import() and type-only imports alike): each feature folder can be read from the ones it
// builds on.
//   node tests/web/imports.mjs [web/src]
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(process.argv[2] || path.join(path.dirname(new URL(import.meta.url).pathname), '../../web/src'));
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.ts')) files.push(p);
  }
})(root);
const spec = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"?]+)['"]/g;
const graph = new Map();
for (const f of files) {
  const deps = [];
  for (const m of fs.readFileSync(f, 'utf8').matchAll(spec)) {
    const base = path.resolve(path.dirname(f), m[1]);
    const hit = [base, `${base}.ts`].find((c) => c.endsWith('.ts') && fs.existsSync(c));
    if (hit) deps.push(hit);
  }
  graph.set(f, deps);
}
const problems = [];
// Circles: a depth-first search that finds every edge back to a module on the stack.
const state = new Map();
const stack = [];
function visit(u) {
  state.set(u, 1);
  stack.push(u);
  for (const v of graph.get(u) ?? []) {
    if (state.get(v) === 1) problems.push(`import circle: ${[...stack.slice(stack.indexOf(v)), v].map((x) => path.relative(root, x)).join(' -> ')}`);
    else if (!state.get(v)) visit(v);
  }
  stack.pop();
  state.set(u, 2);
}
for (const f of files) if (!state.get(f)) visit(f);
for (const p of problems) console.log(p);
console.log(`web imports: ${files.length} modules, ${problems.length} problems`);
process.exit(problems.length ? 1 : 0);
