import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The docs stand on their own and keep up with the code: every relative link and every repository
 * path cited in README.md and docs/*.md exists (an anchor names a heading of its page), every
 * `docs/…md#anchor` a source comment cites exists, and nothing cites files that are not in the
 * repository. Files move; this fails the run when the docs did not follow. (That every setting is
 * documented is test/unit/settings-doc.test.ts's check.)
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const SOURCE_DIRS = ['apps', 'packages', 'scripts', 'bench', 'test', '.ci'];
/** Where a path cited in a code span starts when it names a file of the repository. */
const REPO_PATH = /^(?:apps|packages|scripts|test|bench|docs|\.ci)\/[\w.*/-]*$/;

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
/** Fenced blocks hold commands and sample output, not links or headings. */
const prose = (markdown: string) => markdown.replace(/^```[\s\S]*?^```/gm, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of prose(read(path)).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = heading!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let slug = base;
    for (let n = 1; anchors.has(slug); n += 1) slug = `${base}-${n}`;
    anchors.add(slug);
  }
  return anchors;
}

/** A folder counts when it holds a file: the empty folders a move leaves behind are not in a clone. */
function holdsFile(path: string): boolean {
  const full = join(ROOT, path);
  if (!existsSync(full)) return false;
  if (!statSync(full).isDirectory()) return true;
  return readdirSync(full).some((name) => holdsFile(join(path, name)));
}

/** A problem with `target` (relative to the repository root, optionally with #anchor), or undefined. */
function checkTarget(target: string): string | undefined {
  const [path, anchor] = target.split('#') as [string, string | undefined];
  if (path.includes('*')) {
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    const folder = dirname(path);
    const found = holdsFile(folder) && readdirSync(join(ROOT, folder)).some((name) => pattern.test(`${folder}/${name}`));
    return found ? undefined : 'matches no file';
  }
  // Build output is not in a clone: a cited dist/X.js stands for the source it is compiled from.
  const built = /^(.+)\/dist\/(.+)\.js$/.exec(path);
  if (built) return [`${built[1]}/src/${built[2]}.ts`, `${built[1]}/src/${built[2]}.tsx`].some(holdsFile) ? undefined : 'is built from no source';
  if (!holdsFile(path)) return 'does not exist';
  if (anchor === undefined) return undefined;
  if (!path.endsWith('.md') || statSync(join(ROOT, path)).isDirectory()) return 'has an anchor but is not a page';
  return anchorsOf(path).has(anchor) ? undefined : `has no heading for #${anchor}`;
}

/** Every link target and cited repository path of one page, resolved from the repository root. */
function citationsOf(page: string): string[] {
  const text = prose(read(page));
  const citations: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue;
    citations.push(target!.startsWith('#') ? `${page}${target}` : relative(ROOT, resolve(ROOT, dirname(page), target!)).replace(/\\/g, '/') + (target!.endsWith('/') ? '/' : ''));
  }
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    for (const word of span!.split(/[\s,;()]+/)) {
      const path = word.replace(/^\.\//, '').replace(/[.:]$/, '');
      if (REPO_PATH.test(path)) citations.push(path);
    }
  }
  return citations;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.data')) return [];
    const path = `${dir}/${entry.name}`;
    return entry.isDirectory() ? sourceFiles(path) : /\.(ts|tsx|js|sql|sh|md)$|^run$/.test(entry.name) ? [path] : [];
  });
}

describe('README.md and docs/*.md', () => {
  it('cite only files, folders and headings that exist', () => {
    const broken: string[] = [];
    for (const page of DOCS) {
      for (const citation of citationsOf(page)) {
        const problem = checkTarget(citation);
        if (problem) broken.push(`${page}: ${citation} ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('source comments', () => {
  it('cite only pages and headings of docs/ and the README that exist', () => {
    const broken: string[] = [];
    for (const file of SOURCE_DIRS.flatMap(sourceFiles)) {
      for (const [, target] of read(file).matchAll(/\b((?:docs\/[\w-]+|README)\.md(?:#[\w-]+)?)/g)) {
        const problem = checkTarget(target!);
        if (problem) broken.push(`${file}: ${target} ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the repository', () => {
  it('cites no document that is not in it', () => {
    // Spelled in pieces so that neither this file nor a grep for the names finds itself here.
    const outside = new RegExp(`${'CON'}${'TRACT'}(?:\\.md|\\s*§)|${'DES'}${'IGN'}\\.md`);
    const files = [...DOCS, 'Dockerfile', 'docker-compose.yml', ...SOURCE_DIRS.flatMap(sourceFiles)];
    const citing = files.filter((file) => outside.test(read(file)));
    expect(citing).toEqual([]);
  });
});
