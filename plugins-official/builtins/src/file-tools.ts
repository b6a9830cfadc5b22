import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { utf8BoundaryBefore } from '@factorly/text-kit';
import type { ToolCall, ToolResult } from 'factorly';

/** The reference's sensitive paths: refused for reading and writing. */
const SENSITIVE = [
  '/etc/shadow',
  '/etc/passwd',
  '~/.ssh/',
  '.ssh/id_',
  '.ssh/config',
  '.pem',
  '.key',
  '.env',
  'credentials.json',
  'service-account.json',
  'service_account.json',
];
const READ_CAP = 1024 * 1024;

/** A `.factorly` directory anywhere in a path: factorly's state (this project's, or a nested project's). */
const STATE_DIR_NAME = '.factorly';

/**
 * Where the file tools work: the project directory, and factorly's own files in it (its state
 * directory with the vault, keys and event log, its config), which they never open.
 */
export interface FileScope {
  projectDir: string;
  internal: readonly string[];
}

/**
 * Resolves a path against the project directory, following symlinks (for a file that does not
 * exist yet, those of its nearest existing parent), and refuses anything that ends up outside the
 * project, among factorly's own files (`allow_paths` does not open those: the vault file alone is
 * an offline attack on its password, and a written config or promoted tool would change the rules
 * the agent runs under) or matches a sensitive pattern. Returns the real path or the reason it is refused.
 */
export async function projectPath(
  raw: unknown,
  scope: FileScope,
  allowPaths: readonly string[],
): Promise<{ path: string } | { problem: string }> {
  if (typeof raw !== 'string' || raw === '') return { problem: 'path is required' };
  const { projectDir } = scope;
  const root = await realpath(projectDir);
  const wanted = resolve(projectDir, raw);
  const real = await realOrParent(wanted);
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside))
    return {
      problem: `path ${JSON.stringify(raw)} is outside project directory ${JSON.stringify(root)} (resolved to ${real})`,
    };
  if (await isInternal(real, inside, scope.internal))
    return {
      problem: `path ${JSON.stringify(raw)} blocked by safety guard: it is one of factorly's own files (its state directory ${STATE_DIR_NAME}/ with the vault, keys and event log, or its config); the file tools never open them`,
    };
  const pattern = SENSITIVE.find((p) => matches(real, p));
  if (pattern && !allowPaths.some((allowed) => resolve(projectDir, allowed) === real)) {
    return { problem: `path blocked by safety guard: matches denied pattern ${JSON.stringify(pattern)}` };
  }
  return { path: real };
}

/** Compared without case: on a case-insensitive file system `.FACTORLY/vault.enc` is the vault. */
async function isInternal(real: string, inside: string, internal: readonly string[]): Promise<boolean> {
  if (inside.split(sep).some((part) => part.toLowerCase() === STATE_DIR_NAME)) return true;
  const lower = real.toLowerCase();
  for (const path of internal) {
    const own = (await realOrParent(path)).toLowerCase();
    if (lower === own || lower.startsWith(`${own}${sep}`)) return true;
  }
  return false;
}

async function realOrParent(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : `${await realOrParent(parent)}${sep}${basename(path)}`;
  }
}

function matches(path: string, pattern: string): boolean {
  if (pattern.startsWith('.') && !pattern.includes('/')) {
    const name = basename(path);
    return name.startsWith(pattern) || name.endsWith(pattern);
  }
  return path.includes(pattern.replace(/^~\//, '/'));
}

export async function readTool(call: ToolCall, scope: FileScope, allowPaths: readonly string[]): Promise<ToolResult> {
  const target = await projectPath(call.params.path, scope, allowPaths);
  if ('problem' in target) return { output: '', error: target.problem, exitCode: 1 };
  const bytes = await readFile(target.path);
  const text = bytes.subarray(0, utf8BoundaryBefore(bytes, READ_CAP)).toString('utf8');
  return {
    output: bytes.length > READ_CAP ? `${text}\n[factorly: file cut at ${READ_CAP} bytes of ${bytes.length}]` : text,
    exitCode: 0,
  };
}

export async function writeTool(call: ToolCall, scope: FileScope, allowPaths: readonly string[]): Promise<ToolResult> {
  const target = await projectPath(call.params.path, scope, allowPaths);
  if ('problem' in target) return { output: '', error: target.problem, exitCode: 1 };
  const content = String(call.params.content ?? '');
  await mkdir(dirname(target.path), { recursive: true });
  await writeFile(target.path, content, { mode: 0o644 });
  return { output: `wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${target.path}`, exitCode: 0 };
}
