#!/usr/bin/env node
// Draws the app's PNG icons (web/public/icons/) from the favicon's Khun (web/public/favicon.svg)
// on the header's red, with Debian's Chromium through playwright-core from web/node_modules.
// The PNGs are kept in the repository, so the build needs neither; run this again only when
// the favicon or the colours change:
//
//   node scripts/render-icons.mjs          (CHROMIUM=path for another browser)
//
//   icon-192.png, icon-512.png   "any": a rounded red square, transparent corners
//   icon-maskable-512.png        "maskable": red to the edges, the Khun inside the safe circle
//                                (radius 40 % of the side) that every mask keeps
//   apple-touch-icon.png         180 px, red to the edges (the device rounds the corners)
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(path.join(ROOT, 'web', 'package.json'));
const { chromium } = require('playwright-core');

const RED = '#9b1c1c'; // the header's colour (--red in style.css, theme_color in the manifest)
const favicon = fs.readFileSync(path.join(ROOT, 'web', 'public', 'favicon.svg'), 'utf8');
const khun = favicon.replace(/^[\s\S]*?<svg[^>]*>/, '').replace(/<\/svg>\s*$/, '');
// The Khun's drawing spans about x 20–80 and y 4–95 of its 100-unit box: centre it by its middle.
const MID_Y = 49.5;

/** One icon as SVG: size px square, the Khun's 100-unit box drawn `box` px wide, corner radius r. */
function icon(size, box, r) {
  const x = (size - box) / 2;
  const y = size / 2 - (MID_Y / 100) * box;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">` +
    `<rect width="${size}" height="${size}" rx="${r}" fill="${RED}"/>` +
    `<svg x="${x}" y="${y}" width="${box}" height="${box}" viewBox="0 0 100 100">${khun}</svg>` +
    `</svg>`
  );
}

const ICONS = [
  { file: 'icon-192.png', size: 192, box: 168, r: 42 },
  { file: 'icon-512.png', size: 512, box: 448, r: 112 },
  // 360 px box: the drawing's farthest corner lies about 194 px from the centre, inside 204.8
  { file: 'icon-maskable-512.png', size: 512, box: 360, r: 0 },
  { file: 'apple-touch-icon.png', size: 180, box: 150, r: 0 },
];

const out = path.join(ROOT, 'web', 'public', 'icons');
fs.mkdirSync(out, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  for (const i of ICONS) {
    const page = await browser.newPage({ viewport: { width: i.size, height: i.size }, deviceScaleFactor: 1 });
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${icon(i.size, i.box, i.r)}`);
    await page.screenshot({ path: path.join(out, i.file), omitBackground: true });
    await page.close();
    console.log(`render-icons: ${i.file} (${i.size} px)`);
  }
} finally {
  await browser.close();
}
