/**
 * The reference site (`npm run docs`, TypeDoc): built into a temp dir, served on loopback, and
 * opened in headless Chromium through the DevTools protocol (over `--remote-debugging-pipe`, so no
 * port to discover and no WebSocket). A page of every kind (the home page, the indexes, every
 * module and guide, the first class, interface, function, type and variable) loads with no console
 * error; every link of every page resolves (anchors included); the search box finds `waitForDelivery`.
 * `DOCS_SCREENSHOTS=<dir>` also saves the home page and `waitForDelivery`'s page as PNG files.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, chromiumFlags } from '../helpers/chromium.js';
import { componentAvailable } from '../helpers/components.js';
import { Cdp, type PageVisit, Tab } from '../helpers/devtools.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const chromium = CHROMIUM;
const run = componentAvailable(
  chromium !== undefined,
  'the reference site test needs Chromium: install it with `apt-get install chromium`',
);

/**
 * Anchors that README.md and docs/ write as GitHub slugs a heading with inline code, which
 * TypeDoc slugs differently (it drops the code): TypeDoc warns about the same four when it builds.
 * They work on GitHub; on the site the page opens at its top.
 */
const GITHUB_ONLY_ANCHORS = new Set([
  'documents/docs_observability.html#endpoints-the-sdk-does-not-wrap-clientrequest',
  'documents/docs_sending-many.html#messagesreconcileparams--since-signal-maxpages-clockskewms-',
  'documents/docs_webhooks.html#verifying-verifywebhook',
  // The README's contents list (a link within the page, which TypeDoc does not check).
  'index.html#sending-at-scale-tenant-messagingbullmq',
]);

const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.md': 'text/markdown',
};

let site: string;
let profile: string;
let server: Server;
let origin: string;
let browser: ChildProcess;
let cdp: Cdp;
let pages: string[];

beforeAll(async () => {
  if (!run) return;
  site = await mkdtemp(join(tmpdir(), 'tm-docs-site-'));
  profile = await mkdtemp(join(tmpdir(), 'tm-chromium-'));
  // The browser starts while TypeDoc builds: neither needs the other until the first page.
  browser = spawn(
    chromium as string,
    [
      ...chromiumFlags(profile),
      '--hide-scrollbars',
      // Two tabs load pages at once: none of them may be throttled as a background tab.
      '--disable-background-timer-throttling',
      '--disable-renderer-backgrounding',
      '--disable-backgrounding-occluded-windows',
      '--remote-debugging-pipe',
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
  cdp = new Cdp(browser.stdio[3] as Writable, browser.stdio[4] as Readable);
  const { stderr } = await promisify(execFile)(
    process.execPath,
    [join(root, 'scripts/docs.mjs'), '--out', site, '--logLevel', 'Error'],
    { cwd: root, timeout: 60_000 },
  );
  expect(stderr, 'TypeDoc reported errors').not.toMatch(/\[error\]/);
  pages = (await readdir(site, { recursive: true })).filter((file) => file.endsWith('.html')).map(toUrlPath);

  server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    // The site has no icon; the browser asks for one anyway, and its 404 is not the site's error.
    if (path === '/favicon.ico') return res.writeHead(204).end();
    const file = normalize(join(site, path === '/' ? 'index.html' : path));
    if (!file.startsWith(site + sep)) return res.writeHead(404).end();
    try {
      const body = await readFile(file);
      // Cached: every page loads the same scripts, which the browser then parses from its code cache.
      const cache = path.startsWith('/assets/') ? 'max-age=3600' : 'no-cache';
      res
        .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': cache })
        .end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  if (!run) return;
  if (browser && browser.exitCode === null) {
    const exited = new Promise((resolve) => browser.once('exit', resolve));
    await cdp.send('Browser.close').catch(() => browser.kill());
    await exited;
  }
  if (server) await new Promise((resolve) => server.close(resolve));
  if (site) await rm(site, { recursive: true, force: true });
  if (profile) await rm(profile, { recursive: true, force: true });
});

describe.skipIf(!run)('the reference site (TypeDoc, in headless Chromium)', () => {
  it('has one module per public entry of the exports map', async () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
    const entries = Object.keys(pkg.exports)
      .filter((subpath) => !subpath.endsWith('.json'))
      .map((subpath) => (subpath === '.' ? 'tenant-messaging' : `tenant-messaging/${subpath.slice(2)}`));
    const modules = await readFile(join(site, 'modules.html'), 'utf8');
    const listed = [...modules.matchAll(/<a href="modules\/[^"]+\.html"[^>]*>(?:<[^>]+>)*([^<]+)</g)].map((m) => m[1]);
    expect(new Set(listed)).toEqual(new Set(entries));
  });

  it('loads a page of every kind in Chromium with no console error, and every link of every page resolves', async () => {
    // In Chromium: the home page, the indexes, every module and every guide, and the first page of
    // every other kind (class, interface, function, type, variable): every template of the site and
    // all its scripts. Loading the 192 pages took 21 s of CPU, a tenth of the whole suite's.
    const found = new Map<string, PageVisit>();
    const tabs = await Promise.all(Array.from({ length: 2 }, () => Tab.open(cdp)));
    const queue = sampleOf(pages);
    await Promise.all(
      tabs.map(async (tab) => {
        for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
          found.set(page, await tab.visit(`${origin}/${page}`));
        }
      }),
    );
    await Promise.all(tabs.map((tab) => tab.close()));
    const errors = [...found].flatMap(([page, visit]) => visit.errors.map((error) => `${page}: ${error}`));
    expect(errors).toEqual([]);

    // Every other page as served: its links and anchors are in its HTML (the side navigation, the
    // same on every page, was drawn and checked on the pages above).
    for (const page of pages)
      if (!found.has(page)) found.set(page, staticVisit(page, await readFile(join(site, page), 'utf8')));
    const broken: string[] = [];
    let checked = 0;
    for (const [page, visit] of found) {
      for (const href of visit.links) {
        const url = new URL(href);
        if (url.origin !== origin) continue;
        checked++;
        const target = url.pathname.slice(1) || 'index.html';
        const anchor = decodeURIComponent(url.hash.slice(1));
        if (!existsSync(join(site, decodeURIComponent(target)))) broken.push(`${page} -> ${target}`);
        else if (anchor && !found.get(target)?.ids.has(anchor) && !GITHUB_ONLY_ANCHORS.has(`${target}#${anchor}`)) {
          broken.push(`${page} -> ${target}#${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(pages.length);
  }, 120_000);

  it('finds waitForDelivery with the search box, and links to MessagingClient.waitForDelivery', async () => {
    const tab = await Tab.open(cdp);
    const home = await tab.visit(`${origin}/index.html`);
    expect(home.errors).toEqual([]);
    const results = await tab.evaluate<{ text: string; href: string }[]>(`(async () => {
      document.getElementById('tsd-search-trigger').click();
      const input = document.getElementById('tsd-search-input');
      input.value = 'waitForDelivery';
      input.dispatchEvent(new Event('input', { bubbles: true }));
      const list = document.getElementById('tsd-search-results');
      // Until the results are drawn (the index loads on its own time); the bound only ends a hang.
      for (const end = performance.now() + 30000; !list.querySelector('a') && performance.now() < end; )
        await new Promise((r) => setTimeout(r, 20));
      return [...list.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.href }));
    })()`);
    const hit = results.find((result) =>
      result.href.endsWith('/classes/tenant-messaging.MessagingClient.html#waitfordelivery'),
    );
    expect(hit, JSON.stringify(results)).toBeDefined();
    expect(hit?.text).toContain('waitForDelivery');

    const screenshots = process.env['DOCS_SCREENSHOTS'];
    if (screenshots) {
      await mkdir(screenshots, { recursive: true });
      await writeFile(join(screenshots, 'docs-home.png'), await tab.screenshot(`${origin}/index.html`));
      await writeFile(join(screenshots, 'docs-waitForDelivery.png'), await tab.screenshot(hit?.href as string));
    }
    await tab.close();
  });
});

/** The pages loaded in Chromium: the top-level ones, every module and guide, the first of each other kind. */
function sampleOf(all: readonly string[]): string[] {
  const firstOfKind = new Map<string, string>();
  const sample: string[] = [];
  for (const page of [...all].sort()) {
    const folder = page.includes('/') ? page.slice(0, page.indexOf('/')) : '';
    if (folder === '' || folder === 'modules' || folder === 'documents') sample.push(page);
    else if (!firstOfKind.has(folder)) firstOfKind.set(folder, page);
  }
  return [...sample, ...firstOfKind.values()];
}

/** A page's links (resolved against its address) and anchors, read from its HTML as served. */
function staticVisit(page: string, html: string): PageVisit {
  const base = `${origin}/${page}`;
  const links = [...html.matchAll(/<a\b[^>]*\bhref="([^"]+)"/g)].map(
    (m) => new URL(decodeEntities(m[1] ?? ''), base).href,
  );
  const ids = new Set([...html.matchAll(/\b(?:id|name)="([^"]+)"/g)].map((m) => decodeEntities(m[1] ?? '')));
  return { errors: [], links, ids };
}

const decodeEntities = (text: string) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

function toUrlPath(file: string): string {
  return file.split(sep).join('/');
}
