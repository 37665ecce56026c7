import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, test } from 'vitest';
import { packageRoot } from 'fed/testing';

/**
 * Every relative link of the front door (README.md, CONTRIBUTING.md) and the pages under docs/ points
 * to a file that exists — and, for a link into a Markdown page, to one of its headings — so moving a
 * section or a file cannot leave a dead link behind.
 */
const ROOT = packageRoot();

function markdownPages(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(dir, entry.name)) : entry.name.endsWith('.md') ? [join(dir, entry.name)] : [],
    );
  return [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...walk(join(ROOT, 'docs'))];
}

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line];
  });
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    const slugger = new GithubSlugger();
    anchors = new Set(
      prose(readFileSync(file, 'utf8')).flatMap((line) =>
        /^#{1,6} /.test(line) ? [slugger.slug(line.replace(/^#+ /, ''))] : [],
      ),
    );
    anchorCache.set(file, anchors);
  }
  return anchors;
}

function deadLinks(file: string): string[] {
  const dead: string[] = [];
  for (const line of prose(readFileSync(file, 'utf8'))) {
    const outsideCode = line.replace(/`[^`]*`/g, '');
    for (const [, target] of outsideCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
      if (!existsSync(resolved)) dead.push(`${target}: no such file`);
      else if (anchor && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        dead.push(`${target}: no such heading`);
    }
  }
  return dead.map((link) => `${relative(ROOT, file)}: ${link}`);
}

describe('documentation links', () => {
  test('every relative link in README.md, CONTRIBUTING.md and docs/ resolves', () => {
    expect(markdownPages().flatMap(deadLinks)).toEqual([]);
  });
});
