// Every local link of the project's Markdown leads somewhere: a relative file link to a file or folder that
// exists, an anchor (`#part`, `file.md#part`) to a heading of that file as GitHub slugs it (duplicates get -1,
// -2, ...) or to an explicit <a id> / <a name>. Links to http(s) and other schemes are not followed.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { toString as textOf } from 'mdast-util-to-string';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The committed Markdown files, test fixtures aside. */
function markdownFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '*.md'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return listed
    .split('\n')
    .filter((file) => file !== '' && !file.startsWith('test/fixtures/') && existsSync(join(ROOT, file)));
}

/** The parts of an mdast node read here. */
interface MdNode {
  type: string;
  children?: MdNode[];
  url?: string;
  value?: string;
}

function visit(node: MdNode, each: (node: MdNode) => void): void {
  each(node);
  for (const child of node.children ?? []) visit(child, each);
}

/** The anchors a file offers: its headings' slugs and its explicit ids. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  visit(fromMarkdown(markdown), (node) => {
    if (node.type === 'heading') anchors.add(slugger.slug(textOf(node as Parameters<typeof textOf>[0])));
    if (node.type === 'html') {
      for (const match of (node.value ?? '').matchAll(/<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']/gi)) {
        anchors.add(match[1] as string);
      }
    }
  });
  return anchors;
}

/** The link targets of a file: links, images and link definitions. */
function linksOf(markdown: string): string[] {
  const targets: string[] = [];
  visit(fromMarkdown(markdown), (node) => {
    if (node.url !== undefined && ['link', 'image', 'definition'].includes(node.type)) targets.push(node.url);
  });
  return targets;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(path, 'utf8'));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** What is wrong with one link of `file` (a path from the root), or null. */
function brokenLink(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null; // http(s), mailto, ...
  const [pathPart = '', anchor] = target.split('#', 2);
  const path = decodeURIComponent(pathPart.split('?')[0] as string);
  const resolved =
    path === '' ? join(ROOT, file) : path.startsWith('/') ? join(ROOT, path) : resolve(ROOT, dirname(file), path);
  if (relative(ROOT, resolved).startsWith('..')) return `${target}: outside the repository`;
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined || anchor === '') return null;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return null;
  const anchors = anchorsOfFile(resolved);
  return anchors.has(decodeURIComponent(anchor))
    ? null
    : `${target}: no heading or anchor "${anchor}" in ${relative(ROOT, resolved)}`;
}

describe('Markdown links', () => {
  const files = markdownFiles();

  it('finds the front page and the guides', () => {
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(0);
  });

  it.each(files)('%s: every local link and anchor resolves', (file) => {
    const broken = linksOf(readFileSync(join(ROOT, file), 'utf8'))
      .map((target) => brokenLink(file, target))
      .filter((problem) => problem !== null);
    expect(broken).toEqual([]);
  });

  it('catches a missing file, a missing heading and a duplicate heading taken past its count', () => {
    expect(anchorsOf('# A b\n## A b\n<a id="here"></a>\n')).toEqual(new Set(['a-b', 'a-b-1', 'here']));
    expect(brokenLink('README.md', 'docs/none.md')).toMatch(/no such file/);
    expect(brokenLink('README.md', '#no-such-heading')).toMatch(/no heading/);
    expect(brokenLink('README.md', 'https://example.com/x#y')).toBeNull();
  });
});
