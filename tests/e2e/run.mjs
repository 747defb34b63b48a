#!/usr/bin/env node
// Browser tests of the web client against the real server (build/makruk serve).
//
//   node tests/e2e/run.mjs             starts build/makruk serve itself (free loopback
//                                      port, temporary data directory, --test-clock) and
//                                      stops it after; MAKRUK_BINARY=path picks the binary
//   BASE_URL=http://127.0.0.1:8080 node tests/e2e/run.mjs    uses a running server
//   MAKRUK_WEB=dir serves another build of the client; E2E_ARTIFACTS=dir keeps the
//   screenshots elsewhere; E2E_HUB_THREADS=N gives the server N hub threads;
//   E2E_ONLY=regex runs the tests whose names match; E2E_SHARD=k/n runs every n-th test
//   from the k-th (0-based), with a server of its own (two shards side by side halve the wait)
//
// Needs web/dist (scripts/build-web.sh), web/node_modules (playwright-core) and Debian's
// Chromium (/usr/bin/chromium, or CHROMIUM=path). Screenshots go to tests/e2e/artifacts/.
// The last line is "e2e: N passed, M failed"; the exit status is 1 on any failure.
//
// The harness (the server, the browser, the helpers, the run) is harness.mjs; the tests are
// in suites/, one file per subject, registered in name order, except for the server's
// clock: a suite whose tests need it at the real time says `export const clock = 'real'`
// and comes first; one that moves it ahead for good says 'last' and comes last.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { H, runAll } from './harness.mjs';

const SUITES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'suites');
const suites = [];
for (const f of fs.readdirSync(SUITES).filter((n) => n.endsWith('.mjs')).sort()) suites.push(await import(path.join(SUITES, f)));
const place = (suite) => (suite.clock === 'real' ? 0 : suite.clock === 'last' ? 2 : 1);
for (const suite of suites.map((s, i) => [s, i]).sort(([a, i], [b, j]) => place(a) - place(b) || i - j)) suite[0].default(H);

H.test('the server sends a Content-Security-Policy, and no page of any test broke it', async () => {
  const r = await fetch(`${H.BASE}/`);
  const csp = r.headers.get('content-security-policy') ?? '';
  H.assert(/default-src 'self'/.test(csp) && /frame-ancestors 'none'/.test(csp), `CSP header (${csp})`);
  H.assert(r.headers.get('referrer-policy') === 'no-referrer', 'Referrer-Policy');
  H.assert(H.CSP_VIOLATIONS.length === 0, `no CSP violations (${H.CSP_VIOLATIONS.join(' | ')})`);
}, true);  // in every shard: it looks at the pages of the tests run before it

await runAll();
