import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { DefinitionPreparer, ToolDefinition } from './tool-definition.js';

/** The largest file an entry may name for a key (a script); beyond it the file is refused, not cut. */
export const MAX_INCLUDED_BYTES = 1024 * 1024;

/** Files the config's entries name for a key (`code_file`): the project they must stay in, and those read so far. */
export interface IncludedFiles {
  /** The project folder: no file outside it, by path or by symlink. */
  readonly root: string;
  /** Absolute paths read, in load order: the config watcher and cache follow them as config files. */
  readonly paths: string[];
  /** Their texts, for the config's digest. */
  readonly texts: string[];
}

export function includedFiles(root: string): IncludedFiles {
  return { root, paths: [], texts: [] };
}

/**
 * Reads the files `tool`'s entry names for its provider's `fileKeys` into the keys they stand for,
 * each relative to the folder of `configFile`. Each problem (both keys written, a path that leaves the
 * project or a symlink out of it, a file missing, unreadable, not a file or too big) names the key
 * and the path; the key is then left unset.
 */
export function readFileKeys(
  tool: ToolDefinition,
  provider: DefinitionPreparer,
  configFile: string,
  included: IncludedFiles,
  problem: (message: string, key: string) => void,
): void {
  for (const [fileKey, key] of Object.entries(provider.fileKeys ?? {})) {
    const given = tool.spec[fileKey];
    if (given === undefined) continue;
    if (tool.spec[key] !== undefined) {
      problem(`has both "${key}" and "${fileKey}": keep one`, fileKey);
      continue;
    }
    if (typeof given !== 'string' || given.trim() === '') {
      problem(`has a ${fileKey} that is not a path (a file relative to ${shownDir(configFile, included)})`, fileKey);
      continue;
    }
    const read = readConfined(given, dirname(configFile), included.root);
    if ('problem' in read) {
      problem(`has ${fileKey} ${JSON.stringify(given)}, which ${read.problem}`, fileKey);
      continue;
    }
    tool.spec[key] = read.text;
    included.paths.push(read.path);
    included.texts.push(read.text);
  }
}

function readConfined(given: string, dir: string, root: string): { path: string; text: string } | { problem: string } {
  if (isAbsolute(given)) return { problem: "is not relative to the config file's folder" };
  const path = resolve(dir, given);
  if (!inside(root, path)) return { problem: `leaves the project folder (${root})` };
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    return { problem: unreadable(error) };
  }
  if (!inside(realpathSync(root), real)) return { problem: `is a symlink to ${real}, outside the project folder` };
  try {
    const stat = statSync(real);
    if (!stat.isFile()) return { problem: 'is not a file' };
    if (stat.size > MAX_INCLUDED_BYTES) return { problem: `is larger than ${MAX_INCLUDED_BYTES} bytes` };
    return { path, text: readFileSync(real, 'utf8') };
  } catch (error) {
    return { problem: unreadable(error) };
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'cannot be read (permission denied)';
  return `cannot be read (${code ?? String(error)})`;
}

function shownDir(configFile: string, included: IncludedFiles): string {
  return relative(included.root, dirname(configFile)) || 'the project folder';
}
