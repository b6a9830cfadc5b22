import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * A local stand-in for vendors' APIs, built from their own published OpenAPI (or Swagger)
 * descriptions: each request must match an operation of the vendor's spec — method, path, the query
 * keys it declares (required ones present, values of their schema's type), its required headers, and
 * a body of a content type it accepts that validates against its schema. A request that does not is
 * a violation (kept for the test to assert on) and answered 400. What a matching request gets is the
 * vendor's handler's answer (its real success and error shapes). One server serves every vendor,
 * each under `/<vendor>`.
 */

type Json = Record<string, unknown>;

export interface FakeRequest {
  vendor: string;
  method: string;
  /** The path below `/<vendor>`. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
  /** The body parsed as its content type says (JSON, or a form with bracket keys nested). */
  body: unknown;
  /** The spec operation it matched (`operationId`, else `METHOD /path`). */
  operation?: string;
  pathParams: Record<string, string>;
}

export interface FakeAnswer {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** An operation as a vendor documents it where it publishes no OpenAPI description. */
export interface DocumentedRoute {
  operation: string;
  method: string;
  path: RegExp;
  /** The query keys it takes. */
  query?: readonly string[];
  /** Why a body does not fit, or undefined. */
  body?: (body: unknown) => string | undefined;
}

export interface VendorFake {
  /** A dereferenced spec the requests must fit. */
  spec?: Json;
  /** Without a spec: the routes the vendor documents (GitLab's REST reference, Google's discovery document, Linear's GraphQL). */
  documented?: readonly DocumentedRoute[];
  /** The path the spec's paths sit under on the fake (`/api` for Slack's `basePath`). */
  prefix?: string;
  /** Checks the request's credentials; a string is why they are refused (answered 401 by `unauthorized`). */
  auth?: (request: FakeRequest) => string | undefined;
  unauthorized?: (why: string) => FakeAnswer;
  answer: (request: FakeRequest) => FakeAnswer;
  /** Spec parameters a request's credentials stand for (Slack's `token`, sent as a bearer header). */
  satisfiedByAuth?: readonly string[];
  /**
   * The spec marks every field of a body required where the API takes any of them (Sentry's issue
   * update): a body is checked for its fields' types, not for their presence.
   */
  partialBodies?: boolean;
}

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  template: string;
  operation: Json;
  pathParameters: Json[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });

export class ApiFake {
  readonly requests: FakeRequest[] = [];
  readonly violations: string[] = [];
  private server?: Server;
  private readonly routes = new Map<string, Route[]>();
  private readonly validators = new WeakMap<object, ValidateFunction>();
  base = '';

  constructor(private readonly vendors: Record<string, VendorFake>) {
    for (const [name, vendor] of Object.entries(vendors))
      this.routes.set(name, vendor.spec ? routesOf(vendor.spec) : []);
  }

  /** Reads a vendor's spec file and dereferences it. */
  static async spec(file: string): Promise<Json> {
    const dereference = SwaggerParser.dereference.bind(SwaggerParser) as (
      input: string,
      options: unknown,
    ) => Promise<unknown>;
    return (await dereference(file, { dereference: { circular: 'ignore' } })) as Json;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        const answer = this.handle(req.method ?? 'GET', req.url ?? '/', req.headers, raw);
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(
          answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** The requests one vendor received. */
  of(vendor: string): FakeRequest[] {
    return this.requests.filter((request) => request.vendor === vendor);
  }

  private handle(method: string, url: string, headers: IncomingHttpHeaders, raw: string): FakeAnswer {
    const parsed = new URL(url, 'http://fake');
    const [, vendorName, ...rest] = parsed.pathname.split('/');
    const vendor = this.vendors[vendorName];
    if (!vendor) return this.violate(`no vendor "${vendorName}" (${method} ${url})`);
    const path = `/${rest.join('/')}`;
    const request: FakeRequest = {
      vendor: vendorName,
      method,
      path,
      query: parsed.searchParams,
      headers,
      raw,
      body: parseBody(raw, headers['content-type']),
      pathParams: {},
    };
    this.requests.push(request);
    if (vendor.spec || vendor.documented) {
      const problem = vendor.spec ? this.check(vendor, request) : documentedProblem(vendor.documented!, request);
      if (problem) return this.violate(`${vendorName}: ${method} ${path}: ${problem}`);
    }
    const refused = vendor.auth?.(request);
    if (refused) return vendor.unauthorized?.(refused) ?? { status: 401, body: { message: refused } };
    return vendor.answer(request);
  }

  private violate(message: string): FakeAnswer {
    this.violations.push(message);
    return { status: 400, body: { fake_violation: message } };
  }

  /** Why a request does not fit the vendor's spec, or undefined when it does. */
  private check(vendor: VendorFake, request: FakeRequest): string | undefined {
    const prefix = vendor.prefix ?? '';
    if (!request.path.startsWith(prefix)) return `not under ${prefix}`;
    const specPath = request.path.slice(prefix.length) || '/';
    const route = this.routes
      .get(request.vendor)!
      .find((r) => r.method === request.method && r.regex.test(specPath.replace(/\/+$/, '') || '/'));
    if (!route) return 'no such operation in the spec';
    const match = route.regex.exec(specPath.replace(/\/+$/, '') || '/')!;
    route.names.forEach((name, index) => (request.pathParams[name] = decodeURIComponent(match[index + 1])));
    request.operation = String(route.operation.operationId ?? `${route.method} ${route.template}`);
    const parameters = [...route.pathParameters, ...asList(route.operation.parameters)];
    return (
      this.checkParameters(parameters, request, vendor) ?? this.checkBody(route.operation, parameters, request, vendor)
    );
  }

  private checkParameters(parameters: Json[], request: FakeRequest, vendor: VendorFake): string | undefined {
    const query = parameters.filter((p) => p.in === 'query');
    for (const key of new Set(request.query.keys())) {
      if (!query.some((p) => p.name === key)) return `query "${key}" is not a parameter of ${request.operation}`;
    }
    for (const p of parameters) {
      const name = String(p.name);
      const values =
        p.in === 'query'
          ? request.query.getAll(name)
          : p.in === 'header'
            ? [request.headers[name.toLowerCase()]].flat().filter((v): v is string => typeof v === 'string')
            : p.in === 'path'
              ? [request.pathParams[name]].filter((v) => v !== undefined)
              : [];
      if (p.in === 'body' || p.in === 'formData' || p.in === 'cookie') continue;
      if (values.length === 0) {
        if (p.required === true && !vendor.satisfiedByAuth?.includes(name))
          return `${String(p.in)} parameter "${name}" is required`;
        continue;
      }
      const schema = (p.schema ?? p) as Json;
      for (const value of schema.type === 'array' ? values.flatMap((v) => v.split(',')) : values) {
        const bad = this.scalarProblem(schema.type === 'array' ? ((schema.items ?? {}) as Json) : schema, value);
        if (bad) return `${String(p.in)} parameter "${name}" ${bad}`;
      }
    }
    return undefined;
  }

  private scalarProblem(schema: Json, value: string): string | undefined {
    if (schema.type === 'integer' && !/^-?\d+$/.test(value)) return `is ${JSON.stringify(value)}, not an integer`;
    if (schema.type === 'number' && Number.isNaN(Number(value))) return `is ${JSON.stringify(value)}, not a number`;
    if (schema.type === 'boolean' && !['true', 'false'].includes(value))
      return `is ${JSON.stringify(value)}, not a boolean`;
    if (Array.isArray(schema.enum) && !schema.enum.map(String).includes(value))
      return `is ${JSON.stringify(value)}, not one of ${schema.enum.join(', ')}`;
    return undefined;
  }

  private checkBody(operation: Json, parameters: Json[], request: FakeRequest, vendor: VendorFake): string | undefined {
    const expected = bodyOf(operation, parameters);
    if (!expected) return request.raw === '' ? undefined : 'sends a body the operation does not take';
    if (request.raw === '') return expected.required ? 'sends no body, and one is required' : undefined;
    const type = String(request.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    const schema = expected.types.get(type);
    if (!schema) return `sends ${type || 'no content type'}; the spec takes ${[...expected.types.keys()].join(', ')}`;
    let validate = this.validators.get(schema);
    if (!validate) {
      validate = ajv.compile(relaxed(schema, vendor.partialBodies === true) as Json);
      this.validators.set(schema, validate);
    }
    if (validate(type.includes('form') ? coerceForm(request.body, schema) : request.body)) return undefined;
    return `body does not fit the spec: ${ajv.errorsText(validate.errors)}`;
  }
}

function documentedProblem(routes: readonly DocumentedRoute[], request: FakeRequest): string | undefined {
  const route = routes.find((r) => r.method === request.method && r.path.test(request.path));
  if (!route) return 'no such documented operation';
  request.operation = route.operation;
  for (const key of request.query.keys()) {
    if (!(route.query ?? []).includes(key)) return `query "${key}" is not a parameter of ${route.operation}`;
  }
  return route.body?.(request.body);
}

function routesOf(spec: Json): Route[] {
  const routes: Route[] = [];
  for (const [template, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
    const names: string[] = [];
    const pattern = template
      .replace(/\/+$/, '')
      .split(/(\{[^}]+\})/)
      .map((part) => {
        if (!part.startsWith('{')) return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
        names.push(part.slice(1, -1));
        return '([^/]+)';
      })
      .join('');
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      routes.push({
        method: method.toUpperCase(),
        regex: new RegExp(`^${pattern || '/'}$`),
        names,
        template,
        operation,
        pathParameters: asList(item.parameters),
      });
    }
  }
  // A literal path wins over a templated one (`/search/issues` before `/search/{kind}`).
  return routes.sort((a, b) => a.names.length - b.names.length);
}

/** The body an operation takes: its content types with their schemas (OpenAPI 3, or Swagger 2.0's body and formData). */
function bodyOf(operation: Json, parameters: Json[]): { required: boolean; types: Map<string, Json> } | undefined {
  const requestBody = operation.requestBody as Json | undefined;
  if (requestBody?.content) {
    const types = new Map<string, Json>();
    for (const [type, media] of Object.entries(requestBody.content as Record<string, Json>))
      types.set(type, (media.schema ?? {}) as Json);
    return { required: requestBody.required === true, types };
  }
  const body = parameters.find((p) => p.in === 'body');
  if (body)
    return { required: body.required === true, types: new Map([['application/json', (body.schema ?? {}) as Json]]) };
  const form = parameters.filter((p) => p.in === 'formData');
  if (form.length === 0) return undefined;
  const schema: Json = {
    type: 'object',
    properties: Object.fromEntries(
      form.map((p) => [String(p.name), { type: p.type, ...(p.enum ? { enum: p.enum } : {}) }]),
    ),
    required: form.filter((p) => p.required === true).map((p) => String(p.name)),
  };
  const types = new Map<string, Json>([['application/x-www-form-urlencoded', schema]]);
  // Slack's Web API takes the same arguments as JSON (with a bearer token).
  types.set('application/json', schema);
  return { required: false, types };
}

function parseBody(raw: string, contentType: string | undefined): unknown {
  if (raw === '') return undefined;
  if (contentType?.includes('json')) {
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  }
  if (contentType?.includes('x-www-form-urlencoded')) return nestForm(new URLSearchParams(raw));
  return raw;
}

/** `metadata[order]=7&items[0][price]=p` → `{metadata: {order: '7'}, items: [{price: 'p'}]}`. */
function nestForm(form: URLSearchParams): Json {
  const out: Json = {};
  for (const [key, value] of form) {
    const parts = key.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node: Record<string, unknown> = out;
    parts.forEach((part, index) => {
      if (index === parts.length - 1) node[part] = value;
      else node = (node[part] ??= /^\d+$/.test(parts[index + 1]) ? [] : {}) as Record<string, unknown>;
    });
  }
  return out;
}

/** Form values are text: each is read as its schema's scalar type before validating. */
function coerceForm(value: unknown, schema: Json): unknown {
  if (typeof value === 'string') {
    if (schema.type === 'integer' || schema.type === 'number') return value === '' ? value : Number(value);
    if (schema.type === 'boolean') return value === 'true' ? true : value === 'false' ? false : value;
    return value;
  }
  if (Array.isArray(value)) return value.map((item) => coerceForm(item, (schema.items ?? {}) as Json));
  if (typeof value === 'object' && value !== null) {
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    const alternatives = [schema, ...asList(schema.anyOf), ...asList(schema.oneOf)];
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        const fieldSchema =
          properties[key] ??
          alternatives.map((alt) => (alt.properties as Record<string, Json> | undefined)?.[key]).find(Boolean);
        return [key, coerceForm(item, fieldSchema ?? {})];
      }),
    );
  }
  return value;
}

/**
 * A schema as the check reads it: `oneOf` as `anyOf` (vendors' descriptions often offer overlapping
 * branches, which no real body could match exactly once), a cycle the dereferencing left as a
 * `$ref` taken as anything, and with `partial` no field required.
 */
function relaxed(schema: unknown, partial: boolean, seen = new Map<object, unknown>()): unknown {
  if (Array.isArray(schema)) return schema.map((item) => relaxed(item, partial, seen));
  if (typeof schema !== 'object' || schema === null) return schema;
  if (seen.has(schema)) return seen.get(schema);
  if (typeof (schema as Json).$ref === 'string') return {};
  const out: Json = {};
  seen.set(schema, out);
  for (const [key, value] of Object.entries(schema)) {
    if (partial && key === 'required' && Array.isArray(value)) continue;
    out[key === 'oneOf' ? 'anyOf' : key] = relaxed(value, partial, seen);
  }
  return out;
}

function asList(value: unknown): Json[] {
  return Array.isArray(value) ? (value as Json[]) : [];
}
