import { Document } from 'yaml';
import { FactorlyError } from '../../base/errors.js';
import { didYouMean } from '../../base/suggest.js';
import { BLUEPRINT_NAME } from '../../config/blueprint-header.js';
import { SecurityMapper } from './auth.js';
import type { SpecOperation } from './operations.js';
import type { ImportedOperation, ImportOptions, SpecBlueprint } from '../../editing/contracts.js';
import { requestShape, shortText } from './params.js';
import type { ReadSpec } from './spec.js';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Turns a spec's operations into a blueprint: one `rest` tool per operation, named
 * `<prefix>.<operationId>` made a valid tool name (`/` → `.`, spaces → `_`), its params typed from
 * the schemas, `servers` → `base_url`, security schemes → vault references or an OAuth provider.
 */
export function blueprintFromSpec(spec: ReadSpec, operations: SpecOperation[], options: ImportOptions): SpecBlueprint {
  const info = (spec.document.info ?? {}) as Record<string, unknown>;
  const title = typeof info.title === 'string' && info.title.trim() ? info.title.trim() : 'API';
  const name = prefixOf(options.prefix, title);
  const baseUrl = options.baseUrl?.replace(/\/+$/, '') ?? baseUrlOf(spec);
  const security = new SecurityMapper(spec, name);
  const collisions: string[] = [];
  const skipped: string[] = [];
  const taken = new Map<string, string>();
  const imported = operations.map((operation): ImportedOperation & { entry: Record<string, unknown> } => {
    let tool = `${name}.${operationName(operation)}`;
    const first = taken.get(tool);
    if (first) {
      let n = 2;
      while (taken.has(`${tool}_${n}`)) n += 1;
      collisions.push(`${operation.id} and ${first} both make "${tool}": ${operation.id} is "${tool}_${n}"`);
      tool = `${tool}_${n}`;
    }
    taken.set(tool, operation.id);
    const shape = requestShape(operation);
    skipped.push(...shape.skipped.map((what) => `${operation.id}: ${what}`));
    const confirm = options.confirmWrites !== false && WRITES.has(operation.method);
    return {
      operation: operation.id,
      tool,
      method: operation.method,
      path: operation.path,
      ...(operation.summary ? { summary: operation.summary } : {}),
      parameters: shape.params,
      confirm,
      selected: true,
      entry: { operation, shape, confirm },
    };
  });
  markSelected(imported, options.select);
  const chosen = imported.filter((op) => op.selected);
  const tools = Object.fromEntries(chosen.map((op) => [op.tool, toolEntry(op.entry as never, baseUrl, security)]));
  const auth = security.collected;
  const header = {
    name,
    display_name: title,
    ...(info.version === undefined ? {} : { version: String(info.version) }),
    ...(shortText(info.description as string | undefined)
      ? { description: shortText(info.description as string) }
      : {}),
    auth_type: auth.authType,
    ...(auth.guide.length > 0 ? { auth_guide: auth.guide.join('\n') } : {}),
    requires: { vault_keys: auth.vaultKeys },
  };
  const body = {
    ...header,
    ...(Object.keys(auth.oauthProviders).length > 0 ? { oauth_providers: auth.oauthProviders } : {}),
    tools,
  };
  const doc = new Document(body);
  doc.commentBefore = ` Imported from ${spec.shown} by factorly tools import openapi (${chosen.length} of ${operations.length} operations).`;
  return {
    name,
    title,
    ...(info.version === undefined ? {} : { version: String(info.version) }),
    baseUrl,
    operations: imported.map(({ entry: _entry, ...op }) => op),
    collisions,
    skipped,
    vaultKeys: auth.vaultKeys,
    oauthProviders: Object.keys(auth.oauthProviders),
    yaml: doc.toString({ lineWidth: 0 }),
  };
}

function toolEntry(
  { operation, shape, confirm }: { operation: SpecOperation; shape: ReturnType<typeof requestShape>; confirm: boolean },
  baseUrl: string,
  security: SecurityMapper,
): Record<string, unknown> {
  const auth = security.forOperation(operation);
  const path = auth.query ? `${shape.path}${shape.path.includes('?') ? '&' : '?'}${auth.query}` : shape.path;
  const description = [operation.summary, operation.summary ? undefined : shortText(operation.description)]
    .filter(Boolean)
    .join(' ');
  return {
    type: 'rest',
    description: `${description || `${operation.method} ${operation.path}`}${operation.deprecated ? ' (deprecated)' : ''}`,
    base_url: baseUrl,
    method: operation.method,
    path,
    ...(auth.headers ? { headers: auth.headers } : {}),
    ...(shape.bodyType && shape.bodyType !== 'json' ? { body_type: shape.bodyType } : {}),
    ...(shape.body ? { body: shape.body } : {}),
    ...(auth.auth ? { auth: auth.auth } : {}),
    ...(shape.params.length > 0 ? { parameters: shape.params } : {}),
    ...(confirm ? { shadow: { confirm: true } } : {}),
  };
}

/** An operation's part of its tool name: the operationId (`/` → `.`, spaces → `_`), else `method.path`. */
export function operationName(operation: SpecOperation): string {
  const raw =
    operation.operationId ??
    `${operation.method.toLowerCase()}.${operation.path.replace(/[{}]/g, '').split('/').filter(Boolean).join('.')}`;
  const name = raw
    .replace(/\//g, '.')
    .replace(/\s+/g, '_')
    .replace(/[^A-Za-z0-9_.-]+/g, '_')
    .replace(/\.{2,}/g, '.')
    .replace(/^[._-]+|[._-]+$/g, '');
  return name || operation.method.toLowerCase();
}

function markSelected(operations: ImportedOperation[], select: readonly string[] | undefined): void {
  if (!select || select.length === 0) return;
  const wanted = new Set(select);
  const matches = (op: ImportedOperation): string[] => [
    op.operation,
    `${op.method} ${op.path}`,
    op.tool,
    op.tool.slice(op.tool.indexOf('.') + 1),
  ];
  const known = operations.flatMap(matches);
  const unknown = select.filter((id) => !known.includes(id));
  if (unknown.length > 0)
    throw new FactorlyError(
      'USAGE',
      `--select ${JSON.stringify(unknown[0])} names no operation of the spec${didYouMean(
        unknown[0],
        operations.map((op) => op.operation),
      )}`,
    );
  for (const op of operations) op.selected = matches(op).some((id) => wanted.has(id));
}

function prefixOf(prefix: string | undefined, title: string): string {
  if (prefix !== undefined) {
    if (!new RegExp(BLUEPRINT_NAME).test(prefix))
      throw new FactorlyError(
        'USAGE',
        `--prefix ${JSON.stringify(prefix)}: use lower-case letters, digits, "-" and "_"`,
      );
    return prefix;
  }
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return slug || 'api';
}

/** The API's address: OpenAPI 3's first server (variables at their defaults), Swagger 2.0's scheme, host and basePath. */
function baseUrlOf(spec: ReadSpec): string {
  const doc = spec.document;
  const servers = Array.isArray(doc.servers) ? (doc.servers as Record<string, unknown>[]) : [];
  let url: string | undefined;
  if (servers.length > 0 && typeof servers[0].url === 'string') {
    const variables = (servers[0].variables ?? {}) as Record<string, { default?: unknown }>;
    url = servers[0].url.replace(/\{([^}]+)\}/g, (whole, name: string) => String(variables[name]?.default ?? whole));
  } else if (typeof doc.host === 'string') {
    const schemes = Array.isArray(doc.schemes) ? (doc.schemes as string[]) : [];
    const scheme = schemes.includes('https') ? 'https' : (schemes[0] ?? 'https');
    url = `${scheme}://${doc.host}${typeof doc.basePath === 'string' ? doc.basePath : ''}`;
  }
  if (url !== undefined && !/^https?:\/\//i.test(url) && spec.url) url = new URL(url, spec.url).href;
  if (url === undefined || !/^https?:\/\//i.test(url))
    throw new FactorlyError(
      'SPEC_INVALID',
      `${spec.shown}: names no server the tools could call${url ? ` (${JSON.stringify(url)} is relative)` : ''}; give one with --base-url`,
    );
  return url.replace(/\/+$/, '');
}
