import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { guardedGet } from '@factorly/net-guard';
import { FactorlyError, messageOf } from '../../base/errors.js';
import { didYouMean } from '../../base/suggest.js';

/** Where a blueprint's text came from. */
export interface BlueprintOrigin {
  kind: 'bundled' | 'file' | 'url' | 'text';
  /** The bundled name, the path, the URL, or a label for a text (`pasted`, `openapi:<spec>`). */
  ref: string;
}

/** A blueprint's text before it is read, with where it came from. */
export interface BlueprintText {
  text: string;
  /** As messages show it (`file:line`). */
  shown: string;
  origin: BlueprintOrigin;
}

export interface SourceOptions {
  cwd: string;
  /** URLs the SSRF guard lets through (tests serve blueprints on loopback). */
  allowUrls?: readonly string[];
  signal?: AbortSignal;
}

/** The largest blueprint read from a URL: far more than any real one. */
const URL_CAP = 1024 * 1024;

/** The folder of the blueprints factorly ships (`blueprints/` beside its package.json). */
export function bundledDir(): string {
  for (let dir = import.meta.dirname; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'blueprints'))) return join(dir, 'blueprints');
  }
  return join(import.meta.dirname, 'blueprints');
}

/** The names of the bundled blueprints, sorted. */
export function bundledNames(): string[] {
  const dir = bundledDir();
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .map((file) => file.slice(0, -'.yaml'.length))
    .sort();
}

/** A bundled blueprint's text. */
export function bundledText(name: string): BlueprintText {
  const file = join(bundledDir(), `${name}.yaml`);
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name) || !existsSync(file)) {
    throw new FactorlyError(
      'BLUEPRINT_NOT_FOUND',
      `no bundled blueprint "${name}"${didYouMean(name, bundledNames())} (see factorly blueprint list --available)`,
    );
  }
  return { text: readFileSync(file, 'utf8'), shown: `blueprints/${name}.yaml`, origin: { kind: 'bundled', ref: name } };
}

/**
 * Finds a blueprint's text: a URL (fetched through the SSRF guard of `factorly.fetch`), a file (a
 * path, or any name with a `/` or a YAML extension), else a bundled name.
 */
export async function blueprintText(input: string, options: SourceOptions): Promise<BlueprintText> {
  if (/^https?:\/\//i.test(input)) return fetchBlueprint(input, options);
  const path = resolve(options.cwd, input);
  const looksLikePath = /[/\\]/.test(input) || /\.ya?ml$/i.test(input);
  if (looksLikePath || (existsSync(path) && statSync(path).isFile())) {
    if (!existsSync(path))
      throw new FactorlyError('BLUEPRINT_NOT_FOUND', `no blueprint file ${relative(options.cwd, path) || path}`);
    const shown = relative(options.cwd, path) || path;
    return { text: readFileSync(path, 'utf8'), shown, origin: { kind: 'file', ref: shown } };
  }
  return bundledText(input);
}

async function fetchBlueprint(input: string, options: SourceOptions): Promise<BlueprintText> {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FactorlyError('USAGE', `not a valid URL: ${JSON.stringify(input)}`);
  }
  let answer: Awaited<ReturnType<typeof guardedGet>>;
  try {
    answer = await guardedGet(url, { allowUrls: options.allowUrls, signal: options.signal, cap: URL_CAP });
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    const cause = (error as { cause?: unknown }).cause;
    if (FactorlyError.isInstance(cause)) throw cause;
    throw new FactorlyError('BLUEPRINT_NOT_FOUND', `could not fetch ${url.href}: ${messageOf(cause ?? error)}`);
  }
  if (answer.status >= 400)
    throw new FactorlyError('BLUEPRINT_NOT_FOUND', `${url.href} answered ${answer.status} ${answer.statusText}`.trim());
  if (answer.cut) throw new FactorlyError('BLUEPRINT_INVALID', `${url.href} is larger than ${URL_CAP} bytes`);
  return { text: answer.text, shown: url.href, origin: { kind: 'url', ref: url.href } };
}
