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

/**
 * Resolves a path against the project directory, following symlinks (for a file that does not
 * exist yet, those of its nearest existing parent), and refuses anything that ends up outside the
 * project or matches a sensitive pattern. Returns the real path or the reason it is refused.
 */
export async function projectPath(
  raw: unknown,
  projectDir: string,
  allowPaths: readonly string[],
): Promise<{ path: string } | { problem: string }> {
  if (typeof raw !== 'string' || raw === '') return { problem: 'path is required' };
  const root = await realpath(projectDir);
  const wanted = resolve(projectDir, raw);
  const real = await realOrParent(wanted);
  const inside = relative(root, real);
  if (inside.startsWith('..') || isAbsolute(inside))
    return {
      problem: `path ${JSON.stringify(raw)} is outside project directory ${JSON.stringify(root)} (resolved to ${real})`,
    };
  const pattern = SENSITIVE.find((p) => matches(real, p));
  if (pattern && !allowPaths.some((allowed) => resolve(projectDir, allowed) === real)) {
    return { problem: `path blocked by safety guard: matches denied pattern ${JSON.stringify(pattern)}` };
  }
  return { path: real };
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

export async function readTool(call: ToolCall, projectDir: string, allowPaths: readonly string[]): Promise<ToolResult> {
  const target = await projectPath(call.params.path, projectDir, allowPaths);
  if ('problem' in target) return { output: '', error: target.problem, exitCode: 1 };
  const bytes = await readFile(target.path);
  const text = bytes.subarray(0, utf8BoundaryBefore(bytes, READ_CAP)).toString('utf8');
  return {
    output: bytes.length > READ_CAP ? `${text}\n[factorly: file cut at ${READ_CAP} bytes of ${bytes.length}]` : text,
    exitCode: 0,
  };
}

export async function writeTool(
  call: ToolCall,
  projectDir: string,
  allowPaths: readonly string[],
): Promise<ToolResult> {
  const target = await projectPath(call.params.path, projectDir, allowPaths);
  if ('problem' in target) return { output: '', error: target.problem, exitCode: 1 };
  const content = String(call.params.content ?? '');
  await mkdir(dirname(target.path), { recursive: true });
  await writeFile(target.path, content, { mode: 0o644 });
  return { output: `wrote ${Buffer.byteLength(content, 'utf8')} bytes to ${target.path}`, exitCode: 0 };
}
