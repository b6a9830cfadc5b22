import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The checks that keep the docs in step with the code, each over a tree rooted at `root` so a test
 * can run it on the repository and on a small tree with a planted violation. Each returns what it
 * found wrong, as lines naming the file.
 */

const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', '.factorly', 'artifacts']);

/** Every file under `dir` (relative to `root`), skipping build output and dependencies. */
export function filesUnder(root: string, dir: string, keep: (path: string) => boolean = () => true): string[] {
  const start = join(root, dir);
  if (!existsSync(start)) return [];
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) walk(join(at, entry.name));
      } else if (keep(entry.name)) found.push(relative(root, join(at, entry.name)));
    }
  };
  walk(start);
  return found.sort();
}

/** The workspace packages under `plugins-official/` that have no README.md. */
export function pluginsWithoutReadme(root: string): string[] {
  const dir = join(root, 'plugins-official');
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'package.json')))
    .filter((entry) => !existsSync(join(dir, entry.name, 'README.md')))
    .map((entry) => `plugins-official/${entry.name}`);
}

/** The lines of `markdown` outside fenced code blocks (a Mermaid diagram, a shell example). */
function outsideFences(markdown: string): string {
  let fence: string | undefined;
  const kept: string[] = [];
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined && marker) fence = marker[0];
    else if (fence !== undefined && marker?.[0] === fence) fence = undefined;
    else if (fence === undefined) kept.push(line);
  }
  return kept.join('\n');
}

/** Prose where links are read: outside fenced blocks and inline code. */
function prose(markdown: string): string {
  return outsideFences(markdown).replace(/`[^`\n]*`/g, '``');
}

/** The first cell of every table row in the section under `heading` (up to the next heading of its level or above). */
export function firstCellsOfSection(markdown: string, heading: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.replace(/^#+\s*/, '') === heading && line.startsWith('#'));
  if (start < 0) return [];
  const level = /^#+/.exec(lines[start]!)![0].length;
  const cells: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const deeper = /^(#+)\s/.exec(line);
    if (deeper && deeper[1]!.length <= level) break;
    const row = /^\|\s*([^|]*?)\s*\|/.exec(line);
    if (row && !/^-+$/.test(row[1]!.replace(/:/g, ''))) cells.push(row[1]!.replace(/`/g, ''));
  }
  return cells;
}

/** `names` that are not the first cell of a row of the table under `heading` in `file`. */
export function missingFromTable(root: string, file: string, heading: string, names: readonly string[]): string[] {
  const cells = new Set(firstCellsOfSection(readFileSync(join(root, file), 'utf8'), heading));
  return names.filter((name) => !cells.has(name)).map((name) => `${file} (${heading}): no row for ${name}`);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of outsideFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const text = match[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[*_`]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The relative link targets of a Markdown text (no URLs with a scheme, no links inside code). */
export function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1]!;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
  }
  return targets;
}

/** Every relative link in `files` whose file, or whose anchor in a Markdown file, does not exist. */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const from = join(root, file);
    for (const target of relativeLinks(readFileSync(from, 'utf8'))) {
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const to = path === '' ? from : resolve(dirname(from), decodeURI(path));
      if (!existsSync(to)) {
        broken.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (anchor && to.endsWith('.md') && statSync(to).isFile() && !anchorsOf(readFileSync(to, 'utf8')).has(anchor))
        broken.push(`${file}: ${target} (no heading with that anchor)`);
    }
  }
  return broken;
}

/** The Markdown files whose links are checked: docs/, every README under src/ and plugins-official/*, the main README. */
export function markdownFiles(root: string): string[] {
  const plugins = existsSync(join(root, 'plugins-official'))
    ? readdirSync(join(root, 'plugins-official'))
        .map((name) => `plugins-official/${name}/README.md`)
        .filter((path) => existsSync(join(root, path)))
    : [];
  return [
    ...(existsSync(join(root, 'README.md')) ? ['README.md'] : []),
    ...filesUnder(root, 'docs', (name) => name.endsWith('.md')),
    ...filesUnder(root, 'src', (name) => name === 'README.md'),
    ...plugins,
  ];
}

/** Files under `dirs` whose text contains `needle` (code that cites a document the repository does not hold). */
export function filesCiting(root: string, dirs: readonly string[], needle: string, except: readonly string[] = []) {
  const text = /\.(c|m)?(t|j)sx?$|\.md$|\.json$|\.ya?ml$|\.sh$/;
  return dirs
    .flatMap((dir) => filesUnder(root, dir, (name) => text.test(name)))
    .filter((file) => !except.includes(file))
    .filter((file) => readFileSync(join(root, file), 'utf8').includes(needle));
}
