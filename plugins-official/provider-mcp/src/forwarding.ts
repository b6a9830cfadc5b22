import { writeStderrLine } from '@factorly/text-kit';
import { JsonRpcError } from '@factorly/error-kit';
import type {
  ForwardedMethod,
  McpPassthrough,
  McpSessionLink,
  UpstreamCapabilities,
  UpstreamIntroduction,
} from '@factorly/plugin-interface-mcp/api';
import type { ClientLink, ToolCatalog } from 'factorly';
import { unionOfCapabilities } from './capabilities.js';
import { forwardedError } from './forwarded-error.js';
import { Owners } from './owners.js';
import type { Sessions } from './sessions.js';
import type { Upstream } from './upstream.js';

type Params = Record<string, unknown>;
type Result = Record<string, unknown>;
interface Context {
  sessionId: string;
  call?: ClientLink;
  signal?: AbortSignal;
}

/** List methods, the capability a server needs for them, and the field holding the items. */
const LISTS = {
  'resources/list': ['resources', 'resources'],
  'resources/templates/list': ['resources', 'resourceTemplates'],
  'prompts/list': ['prompts', 'prompts'],
} as const;

/**
 * The upstream servers' resources, templates, subscriptions, prompts, completions and log level,
 * forwarded for one agent session at a time over that session's own connection to each server.
 * Lists are the servers' pages one after another (one server: its pages as they are); a URI, a
 * prompt name or a completion reference goes to the server that listed it. Prompt names carry the
 * `<entry>.` prefix as tool names do (none with `prefix: false`). Each request to a server is an
 * `mcp.forwarded` event.
 */
export class UpstreamForwarding implements McpPassthrough {
  readonly name = 'mcp';
  private readonly owners = new Owners();

  constructor(
    private readonly upstreams: () => Upstream[],
    private readonly sessions: Sessions,
    private readonly catalog: Pick<ToolCatalog, 'dropSession'>,
    /** Told when an agent's session opens: factorly is serving, so servers that failed are retried. */
    private readonly sessionOpened: (session: McpSessionLink) => void = () => undefined,
  ) {}

  capabilities(): UpstreamCapabilities {
    return unionOfCapabilities(this.upstreams().map((upstream) => upstream.capabilities()));
  }

  introductions(): UpstreamIntroduction[] {
    return this.upstreams().map((upstream) => ({ server: upstream.name, ...upstream.introduced() }));
  }

  /** Opens the session's own connections to servers that offer such a client more; one that fails leaves the session the shared tools, with a word on stderr. */
  async openSession(session: McpSessionLink): Promise<void> {
    this.sessions.add(session);
    this.sessionOpened(session);
    await Promise.all(
      this.upstreams().map((upstream) =>
        upstream.openSession(session.sessionId, session.capabilities).catch((error: unknown) => {
          writeStderrLine(
            'factorly: ',
            `upstream MCP server "${upstream.name}" could not be connected for a new session, which sees its shared tools: ${(error as Error).message}`,
          );
        }),
      ),
    );
  }

  async closeSession(sessionId: string): Promise<void> {
    this.catalog.dropSession(sessionId);
    this.sessions.remove(sessionId);
    await Promise.all(this.upstreams().map((upstream) => upstream.closeSession(sessionId)));
  }

  async clientNotified(sessionId: string, method: string, params: Params): Promise<void> {
    await Promise.all(this.upstreams().map((upstream) => upstream.notifySession(sessionId, method, params)));
  }

  async forward(method: ForwardedMethod, params: Params, context: Context): Promise<Result> {
    switch (method) {
      case 'resources/list':
      case 'resources/templates/list':
      case 'prompts/list':
        return this.list(method, params, context);
      case 'resources/read':
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.first(
          this.owners.ofUri(String(params.uri), this.serving('resources')),
          method,
          params,
          context,
          String(params.uri),
        );
      case 'prompts/get':
        return this.getPrompt(params, context);
      case 'completion/complete':
        return this.complete(params, context);
      case 'logging/setLevel':
        this.sessions.setLevel(context.sessionId, String(params.level));
        await Promise.all(
          this.serving('logging').map((upstream) => this.send(upstream, method, params, context, String(params.level))),
        );
        return {};
    }
  }

  private async list(method: keyof typeof LISTS, params: Params, context: Context): Promise<Result> {
    const [capability, field] = LISTS[method];
    const servers = this.serving(capability);
    if (servers.length === 0) return { [field]: [] };
    const position = decodeCursor(params.cursor, servers.length);
    const upstream = servers[position.index];
    const page = await this.send(upstream, method, { ...params, cursor: position.cursor }, context);
    const items = Array.isArray(page[field]) ? (page[field] as Record<string, unknown>[]) : [];
    this.owners.learn(method, upstream, items);
    const shown =
      method === 'prompts/list' && upstream.prefixed
        ? items.map((item) => ({ ...item, name: `${upstream.name}.${String(item.name)}` }))
        : items;
    const next = nextCursor(position.index, page.nextCursor, servers.length);
    const { nextCursor: _upstreamCursor, ...rest } = page;
    return { ...rest, [field]: shown, ...(next === undefined ? {} : { nextCursor: next }) };
  }

  private getPrompt(params: Params, context: Context): Promise<Result> {
    const [upstream, name] = this.owners.ofPrompt(String(params.name), this.serving('prompts'));
    return this.first(upstream, 'prompts/get', { ...params, name }, context, String(params.name));
  }

  private complete(params: Params, context: Context): Promise<Result> {
    const ref = (params.ref ?? {}) as { type?: string; name?: string; uri?: string };
    const servers = this.serving('completions');
    if (ref.type === 'ref/prompt') {
      const [candidates, name] = this.owners.ofPrompt(String(ref.name), servers);
      return this.first(
        candidates,
        'completion/complete',
        { ...params, ref: { ...ref, name } },
        context,
        `prompt ${ref.name}`,
      );
    }
    return this.first(
      this.owners.ofUri(String(ref.uri), servers),
      'completion/complete',
      params,
      context,
      `resource ${ref.uri}`,
    );
  }

  /** Asks each candidate in turn until one answers; the last error is the answer when none does. */
  private async first(
    candidates: Upstream[],
    method: string,
    params: Params,
    context: Context,
    target: string,
  ): Promise<Result> {
    if (candidates.length === 0) throw JsonRpcError.of('PARAMS_INVALID', `no upstream MCP server offers ${target}`);
    let failure: unknown;
    for (const upstream of candidates) {
      try {
        return await this.send(upstream, method, params, context, target);
      } catch (error) {
        failure = error;
      }
    }
    throw failure;
  }

  /** One request to one server, recorded as `mcp.forwarded` before its answer is returned. */
  private async send(
    upstream: Upstream,
    method: string,
    params: Params,
    context: Context,
    target?: string,
  ): Promise<Result> {
    const started = performance.now();
    const named = target === undefined ? {} : { target: await this.sessions.scrub.text(target, upstream.entry) };
    const base = {
      direction: 'to_upstream' as const,
      method,
      server: upstream.name,
      sessionId: context.sessionId,
      agentId: this.sessions.get(context.sessionId)?.agentId,
      ...named,
    };
    try {
      const result = await this.sessions.scrub.value(
        await upstream.forward(method, params, context.sessionId, context.call, context.signal),
        upstream.entry,
      );
      await this.sessions.record({ ...base, status: 'success', durationMs: Math.round(performance.now() - started) });
      return result;
    } catch (error) {
      const passed = forwardedError(error);
      passed.message = await this.sessions.scrub.text(passed.message, upstream.entry);
      await this.sessions.record({
        ...base,
        status: 'error',
        error: passed.message,
        durationMs: Math.round(performance.now() - started),
      });
      throw passed;
    }
  }

  private serving(capability: string): Upstream[] {
    return this.upstreams()
      .filter((upstream) => upstream.capabilities()[capability] !== undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** With several servers, a cursor says whose page comes next and that server's own cursor. */
function decodeCursor(cursor: unknown, servers: number): { index: number; cursor?: string } {
  if (cursor === undefined) return { index: 0 };
  if (servers === 1) return { index: 0, cursor: String(cursor) };
  try {
    const [index, inner] = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8')) as [
      number,
      string | null,
    ];
    if (Number.isInteger(index) && index >= 0 && index < servers)
      return { index, ...(inner === null ? {} : { cursor: inner }) };
  } catch {
    // fall through to the error below
  }
  throw JsonRpcError.of(
    'PARAMS_INVALID',
    `invalid cursor ${JSON.stringify(cursor)}: pass back a nextCursor from an earlier page`,
  );
}

function nextCursor(index: number, upstreamCursor: unknown, servers: number): string | undefined {
  if (servers === 1) return typeof upstreamCursor === 'string' ? upstreamCursor : undefined;
  if (typeof upstreamCursor === 'string') return encode([index, upstreamCursor]);
  return index + 1 < servers ? encode([index + 1, null]) : undefined;
}

function encode(position: [number, string | null]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}
