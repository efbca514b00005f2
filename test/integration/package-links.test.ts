/**
 * The docs travel with the packages: for the SDK (the root) and every workspace under packages/,
 * its tarball (the suite's, test/helpers/pack.ts; `npm pack --dry-run` for a workspace the suite
 * does not pack) lists what it holds, and every relative link of every Markdown
 * file it holds must lead to a file in that same tarball (a user who installed from npm has
 * nothing else), with its `#anchor` a heading of the target (GitHub's slugs) or an explicit
 * `id`/`name`. Absolute URLs are not fetched. Prints how many links were checked per package.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { npm, root } from '../helpers/npm.js';
import { sharedPackages } from '../helpers/pack.js';

const run = promisify(execFile);

/** The root package and every workspace that has a package.json. */
const packageDirs = [
  '.',
  ...(existsSync(join(root, 'packages'))
    ? readdirSync(join(root, 'packages'))
        .map((name) => `packages/${name}`)
        .filter((dir) => existsSync(join(root, dir, 'package.json')))
    : []),
];

/** The paths of the package's tarball, relative to the package's folder. */
async function packedFiles(dir: string): Promise<{ name: string; files: string[] }> {
  const packed = await sharedPackages();
  const tarball = { '.': packed.sdk, 'packages/cli': packed.cli, 'packages/mcp': packed.mcp }[dir];
  if (tarball !== undefined) {
    const name = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name as string;
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout
      .trim()
      .split('\n')
      .map((path) => path.replace(/^package\//, ''));
    return { name, files };
  }
  // --ignore-scripts: no prepack build (and no version pinning) just to list the files.
  const { stdout } = await npm(['pack', '--dry-run', '--json', '--ignore-scripts'], join(root, dir));
  const [info] = JSON.parse(stdout) as { name: string; files: { path: string }[] }[];
  if (!info) throw new Error(`${dir}: npm pack listed nothing`);
  return { name: info.name, files: info.files.map((file) => file.path) };
}

interface Link {
  /** The line of the Markdown file it is on (1-based). */
  line: number;
  target: string;
}

/** Markdown without fenced code blocks and inline code spans, line numbers kept. */
function prose(markdown: string): string[] {
  const lines = markdown.split('\n');
  let fence: string | undefined;
  return lines.map((text) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (opening !== undefined && opening[0] === fence[0] && opening.length >= fence.length) fence = undefined;
      return '';
    }
    if (opening !== undefined) {
      fence = opening;
      return '';
    }
    return text.replace(/(`+)(?:(?!\1).)+?\1/g, '');
  });
}

/** Every link target of a Markdown file: inline links and images, reference definitions, HTML href/src. */
function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  for (const [i, text] of prose(markdown).entries()) {
    const patterns = [
      /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g,
      /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/g,
      /<(?:a|img)\b[^>]*?\b(?:href|src)="([^"]*)"/g,
    ];
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) links.push({ line: i + 1, target: match[1] ?? '' });
    }
  }
  return links;
}

/** GitHub's heading slugs (github-slugger): lower case, punctuation dropped, spaces to dashes, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = markdown.split('\n');
  const visible = prose(markdown);
  for (const [i, raw] of lines.entries()) {
    for (const match of raw.matchAll(/<a\b[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1] ?? '');
    if (visible[i] === '' && raw.trim() !== '') continue; // inside a code block
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)?.[1];
    if (heading === undefined) continue;
    const text = heading
      .replace(/!?\[((?:[^\][]|\[[^\]]*\])*)\]\([^)]*\)/g, '$1') // a link's text
      .replace(/<[^>]+>/g, '') // HTML tags
      .replace(/[*`]/g, '') // emphasis and code marks (underscores stay, as GitHub keeps them)
      .toLowerCase();
    const base = text.replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Why a link of `from` is broken, or undefined when it resolves inside the tarball. */
const isAbsolute = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

function broken(from: string, target: string, packed: Set<string>, read: (path: string) => string): string | undefined {
  const hash = target.indexOf('#');
  const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? '' : decodeURIComponent(target.slice(hash + 1));
  if (path.startsWith('/')) return 'a path from the site root: write it relative to the file';
  const resolved = path === '' ? from : posix.normalize(posix.join(posix.dirname(from), path));
  if (resolved.startsWith('../')) return 'outside the package';
  const folder = resolved.replace(/\/$/, '');
  const isFile = packed.has(resolved);
  const isFolder = !isFile && [...packed].some((file) => file.startsWith(`${folder}/`));
  if (!isFile && !isFolder) return `${resolved} is not in the tarball`;
  if (anchor === '' || !isFile || !resolved.endsWith('.md')) return undefined;
  return anchorsOf(read(resolved)).has(anchor) ? undefined : `no heading #${anchor} in ${resolved}`;
}

describe('every relative link of every packed Markdown file resolves inside its tarball', () => {
  it.each(packageDirs)('%s', { timeout: 180_000 }, async (dir) => {
    const { name, files } = await packedFiles(dir);
    const packed = new Set(files);
    const read = (path: string) => readFileSync(join(root, dir, path), 'utf8');
    const problems: string[] = [];
    const markdown = files.filter((path) => path.endsWith('.md'));
    let checked = 0;
    for (const file of markdown) {
      for (const link of linksOf(read(file))) {
        // An absolute URL (https:, mailto:) is not fetched.
        if (isAbsolute(link.target)) continue;
        checked++;
        const why = broken(file, link.target, packed, read);
        if (why !== undefined) problems.push(`${posix.join(dir, file)}:${link.line}: ${link.target}: ${why}`);
      }
    }
    expect(problems, `broken links in ${name} (${dir})`).toEqual([]);
    if (dir === '.') expect(checked).toBeGreaterThan(50);
  });
});

describe('the link reader', () => {
  it('skips code, reads every link form, and slugs headings as GitHub does', () => {
    const markdown = [
      '# Sending at scale: `tenant-messaging/bullmq`',
      '## AI assistants (MCP)',
      '## Options',
      '## Options',
      '```sh',
      '[not a link](nowhere.md)',
      '```',
      'See [a](docs/a.md#x), `[code](no.md)`, ![img](i.png "t") and <a href="b.md">b</a>.',
      '[ref]: docs/c.md',
    ].join('\n');
    expect(linksOf(markdown).map((link) => `${link.line} ${link.target}`)).toEqual([
      '8 docs/a.md#x',
      '8 i.png',
      '8 b.md',
      '9 docs/c.md',
    ]);
    expect([...anchorsOf(markdown)]).toEqual([
      'sending-at-scale-tenant-messagingbullmq',
      'ai-assistants-mcp',
      'options',
      'options-1',
    ]);
    const packed = new Set(['README.md', 'docs/a.md', 'examples/fleet/README.md']);
    const read = (path: string) => (path === 'docs/a.md' ? '# X' : '## Contents');
    expect(broken('README.md', 'docs/a.md#x', packed, read)).toBeUndefined();
    expect(broken('docs/a.md', '../README.md#contents', packed, read)).toBeUndefined();
    expect(broken('README.md', 'examples/fleet/', packed, read)).toBeUndefined();
    expect(broken('README.md', '#nowhere', packed, read)).toBe('no heading #nowhere in README.md');
    expect(broken('README.md', 'CONTRIBUTING.md', packed, read)).toBe('CONTRIBUTING.md is not in the tarball');
    expect(broken('docs/a.md', '../../README.md', packed, read)).toBe('outside the package');
  });
});
