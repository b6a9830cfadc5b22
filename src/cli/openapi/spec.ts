import { readFile, realpath } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { guardedGet } from '@factorly/net-guard';
import { parse as parseYaml } from 'yaml';
import { FactorlyError, messageOf } from '../../base/errors.js';

/** A spec read and dereferenced: every `$ref` replaced by what it points at (a cycle stays a `$ref`). */
export interface ReadSpec {
  document: Record<string, unknown>;
  /** As messages show it: the path, the URL, or the label of a pasted text. */
  shown: string;
  /** A URL the spec came from (a relative `servers` entry resolves against it). */
  url?: string;
}

export interface SpecOptions {
  cwd: string;
  /** URLs the SSRF guard lets through (tests serve specs on loopback). */
  allowUrls?: readonly string[];
}

/** The largest spec or referenced file read: GitHub's and Stripe's full descriptions fit. */
const SPEC_CAP = 32 * 1024 * 1024;

/**
 * Reads an OpenAPI 3.x or Swagger 2.0 description (a file, an http(s) URL, or a text) with
 * `@apidevtools/swagger-parser` and dereferences it. Its `$ref`s resolve only inside the spec's own
 * folder (no `..` out of it, no symlink out of it; none at all for a pasted text), and remote ones
 * only through the SSRF guard of `factorly.fetch`. Throws `SPEC_INVALID` naming the reason.
 */
export async function readSpec(
  source: { path?: string; text?: string; label?: string },
  options: SpecOptions,
): Promise<ReadSpec> {
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  const refused: string[] = [];
  const isUrl = source.path !== undefined && /^https?:\/\//i.test(source.path);
  const root = source.path === undefined ? undefined : isUrl ? source.path : resolve(options.cwd, source.path);
  const folder = root !== undefined && !isUrl ? await realFolder(root) : undefined;
  const shown =
    source.path === undefined ? (source.label ?? 'pasted spec') : isUrl ? root! : relative(options.cwd, root!) || root!;
  const resolvers = {
    file: { read: (file: { url: string }) => readConfined(file.url, folder, shown, refused) },
    // Every http(s) URL comes here (the library's own check would refuse loopback without saying why).
    http: {
      canRead: (file: { url: string }) => /^https?:\/\//i.test(file.url),
      read: (file: { url: string }) => fetchGuarded(file.url, options.allowUrls, refused),
    },
  };
  let document: unknown;
  try {
    const input = source.text !== undefined ? parseText(source.text, shown) : root!;
    // Typed loosely: the parser's own types do not know the resolvers' `canRead`.
    const dereference = SwaggerParser.dereference.bind(SwaggerParser) as (
      input: unknown,
      options: unknown,
    ) => Promise<unknown>;
    document = await dereference(input, { resolve: resolvers, dereference: { circular: 'ignore' } });
  } catch (error) {
    if (refused.length > 0) throw new FactorlyError('SPEC_INVALID', `${shown}: ${refused[0]}`);
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError('SPEC_INVALID', `${shown}: ${firstLine(messageOf(error))}`, { cause: error });
  }
  checkShape(document, shown);
  return { document: document as Record<string, unknown>, shown, ...(isUrl ? { url: root } : {}) };
}

async function realFolder(file: string): Promise<string> {
  try {
    return dirname(await realpath(file));
  } catch {
    throw new FactorlyError('SPEC_INVALID', `no spec file ${file}`);
  }
}

/** A `$ref`'d (or the root) file, read only when it lies inside the spec's folder once links are followed. */
async function readConfined(
  url: string,
  folder: string | undefined,
  shown: string,
  refused: string[],
): Promise<Buffer> {
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  const refuse = (why: string): never => {
    refused.push(why);
    throw new FactorlyError('SPEC_INVALID', why);
  };
  if (folder === undefined)
    return refuse(`$ref to ${JSON.stringify(path)} refused: ${shown} may refer to no local file`);
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    return refuse(`$ref to ${JSON.stringify(path)} does not resolve: no such file`);
  }
  if (real !== folder && !real.startsWith(`${folder}${sep}`))
    return refuse(`$ref to ${JSON.stringify(path)} refused: it is outside the spec's folder (${folder})`);
  return readFile(real);
}

async function fetchGuarded(url: string, allowUrls: readonly string[] | undefined, refused: string[]): Promise<string> {
  try {
    const answer = await guardedGet(new URL(url), { allowUrls, cap: SPEC_CAP });
    if (answer.status >= 400)
      throw new FactorlyError('SPEC_INVALID', `${url} answered ${answer.status} ${answer.statusText}`);
    if (answer.cut) throw new FactorlyError('SPEC_INVALID', `${url} is larger than ${SPEC_CAP} bytes`);
    return answer.text;
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    refused.push(
      FactorlyError.isInstance(error) ? error.message : `could not fetch ${url}: ${messageOf(cause ?? error)}`,
    );
    throw error;
  }
}

function parseText(text: string, shown: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 1000 }) as unknown;
  } catch (error) {
    throw new FactorlyError('SPEC_INVALID', `${shown}: not JSON or YAML: ${firstLine(messageOf(error))}`);
  }
}

/** What the importer relies on: an OpenAPI 3.x or Swagger 2.0 document with paths. */
function checkShape(document: unknown, shown: string): void {
  const doc = document as Record<string, unknown> | null;
  const version = String(doc?.openapi ?? doc?.swagger ?? '');
  if (!/^(3\.\d+(\.\d+)?|2\.0)$/.test(version))
    throw new FactorlyError(
      'SPEC_INVALID',
      `${shown}: not an OpenAPI 3.x or Swagger 2.0 description (openapi/swagger is ${JSON.stringify(doc?.openapi ?? doc?.swagger ?? null)})`,
    );
  if (typeof doc?.paths !== 'object' || doc.paths === null)
    throw new FactorlyError('SPEC_INVALID', `${shown}: it has no paths`);
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}
