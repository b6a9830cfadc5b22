import { writeStderrLine } from '@factorly/text-kit';
import type { McpSessionLink } from '@factorly/plugin-interface-mcp/api';
import type { OAuthUpstreams, UpstreamAuthProvider } from '@factorly/plugin-oauth/api';
import type {
  SecretScope,
  SourceStatus,
  ToolCall,
  ToolCatalog,
  ToolDefinition,
  ToolProvider,
  ToolResult,
} from 'factorly';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { forwardedError } from './forwarded-error.js';
import { LoginPrompts } from './login-prompts.js';
import { MCP_KEYS, prepareMcp, readTarget, targetTemplates } from './mcp-spec.js';
import { toToolResult } from './result.js';
import type { Sessions } from './sessions.js';
import { runsAsTask, toolDefinitions } from './tool-definitions.js';
import { SourceStates } from './source-states.js';
import { Upstream, UpstreamClosedError } from './upstream.js';

/**
 * `type: mcp`: an upstream MCP server whose tools become `<entry>.<remote>` tools with their real
 * JSON Schemas. Each server is connected at boot by `expand` (to list its tools); a call from an
 * agent session goes over that session's own connection (see `Upstream`), so the server's progress,
 * log messages and requests reach that agent; arguments are forwarded as typed JSON. When a server
 * lists its tools again (it said they changed, or a new session's client can do more), the
 * catalogue follows.
 */
export class McpProvider implements ToolProvider {
  readonly type = 'mcp';
  readonly keys = MCP_KEYS;
  private readonly upstreams = new Map<string, Upstream>();
  /** Each server's state; one that cannot be listed is retried, and its tools arrive when it answers. */
  private readonly states = new SourceStates(
    (upstream, tools) => this.listed(upstream, undefined, tools),
    (text, upstream) => this.sessions.scrub.text(text, upstream.entry),
    (upstream) => this.prompts.offer(this.sessions.all(), [upstream.name]),
  );
  /** Agents whose client can open a URL are asked to log in to a server waiting for a login. */
  private readonly prompts: LoginPrompts;

  /**
   * `connectionSecrets` resolves an upstream's env, URL and headers once, and their values are
   * scrubbed from every call; `logins` (the oauth plugin's, when installed) keeps HTTP servers' logins.
   */
  constructor(
    private readonly connectionSecrets: SecretScope,
    private readonly sessions: Sessions,
    private readonly catalog: ToolCatalog,
    private readonly logins?: OAuthUpstreams,
  ) {
    this.prompts = new LoginPrompts(logins, (name) => this.states.retryNow(name));
  }

  prepare(tool: ToolDefinition) {
    const prepared = prepareMcp(tool);
    const { oauth, url } = tool.spec;
    if (oauth === undefined || url === undefined) return prepared;
    const problems = this.logins
      ? this.logins.check(oauth)
      : ['has oauth, but the oauth plugin (@factorly/plugin-oauth) is not installed'];
    return { ...prepared, problems: [...prepared.problems, ...problems] };
  }

  async expand(entry: ToolDefinition): Promise<ToolDefinition[]> {
    const upstream = await this.upstreamFor(entry);
    return toolDefinitions(entry, await this.states.list(upstream));
  }

  /**
   * An agent is being served: servers that failed are retried from now on (a one-shot command never
   * retries), and one waiting for a login asks the agent's person, when its client can open a URL.
   */
  serving(session?: McpSessionLink): void {
    this.states.arm();
    if (session) this.prompts.offer([session], this.states.waitingForLogin());
  }

  sourceStatuses(): SourceStatus[] {
    return this.states.statuses().filter((status) => this.upstreams.has(status.name));
  }

  /**
   * The server of an entry. Listed again (the config was reloaded) with the same target and prefix,
   * it keeps running, sessions and all; changed, the old one is stopped and a new one started.
   */
  private async upstreamFor(entry: ToolDefinition): Promise<Upstream> {
    const target = readTarget(entry);
    const prefixed = entry.spec.prefix !== false;
    const auth = target.kind === 'http' ? this.authOf(entry.name) : undefined;
    const existing = this.upstreams.get(entry.name);
    const same = existing?.prefixed === prefixed && existing.auth === auth;
    if (existing && same && JSON.stringify(existing.target) === JSON.stringify(target)) {
      existing.entry = entry;
      return existing;
    }
    await existing?.stop();
    this.states.forget(entry.name);
    const upstream = new Upstream(
      entry,
      target,
      (template) => this.connectionSecrets.resolve(template),
      this.sessions,
      (...listing) => this.listed(...listing),
      prefixed,
      auth,
    );
    this.upstreams.set(entry.name, upstream);
    return upstream;
  }

  /** The login's auth provider of a declared HTTP upstream (none without the oauth plugin). */
  private authOf(name: string): UpstreamAuthProvider | undefined {
    try {
      return this.logins?.authProvider(name);
    } catch {
      return undefined; // not declared: a kernel built without the config listeners
    }
  }

  async execute(call: ToolCall): Promise<ToolResult> {
    const server = String(call.tool.spec.server ?? call.tool.name);
    const upstream = this.upstreams.get(server);
    if (!upstream)
      return {
        output: '',
        error: `mcp server "${server}" is not connected (was the tool listed at start-up?)`,
        exitCode: 1,
      };
    // Resolve the server's own secret references in this call's scope too, so its output is scrubbed of them.
    for (const template of targetTemplates(readTarget(call.tool)))
      if (template.includes('{{')) await call.secrets.resolve(template);
    try {
      const options = {
        signal: call.signal,
        timeoutMs: call.timeoutMs,
        client: call.client,
        asTask: runsAsTask(call.tool),
      };
      return toToolResult(await upstream.call(String(call.tool.spec.remote), call.params, options));
    } catch (error) {
      return failure(error, call, server);
    }
  }

  /** A server listed its tools again: for one session, or (no session) for everyone. */
  private listed(upstream: Upstream, sessionId: string | undefined, tools: Tool[]): void {
    // A listing that lands after its session closed has no one to serve (and would never be dropped).
    if (sessionId !== undefined && !this.sessions.get(sessionId)) return;
    const definitions = toolDefinitions(upstream.entry, tools);
    const left =
      sessionId === undefined
        ? this.catalog.replaceEntry(upstream.name, definitions)
        : this.catalog.setSessionTools(sessionId, upstream.name, definitions);
    for (const name of left)
      writeStderrLine(
        'factorly: ',
        `upstream MCP server "${upstream.name}" now lists a tool "${name}", a name another tool has; it is left out`,
      );
  }

  /** The running upstream for a server entry (tests and diagnostics). */
  upstream(name: string): Upstream | undefined {
    return this.upstreams.get(name);
  }

  /** Every connected upstream server. */
  all(): Upstream[] {
    return [...this.upstreams.values()];
  }

  async stop(): Promise<void> {
    this.states.stop();
    await Promise.all([...this.upstreams.values()].map((upstream) => upstream.stop()));
  }
}

/** The MCP SDK's `ErrorCode.RequestTimeout` (named here: the SDK loads only when a server is reached). */
const SDK_REQUEST_TIMEOUT = -32001;

function failure(error: unknown, call: ToolCall, server: string): ToolResult {
  if (error instanceof UpstreamClosedError) return { output: '', error: error.message, exitCode: 1 };
  // The signal says who stopped the call (its reason is the deadline's TimeoutError or the caller's);
  // the SDK's error code says only that the request ended.
  const deadline = (call.signal.reason as Error | undefined)?.name === 'TimeoutError';
  if (call.signal.aborted && !deadline)
    return { output: '', error: `upstream MCP server "${server}": call was cancelled`, exitCode: 130 };
  if (deadline || (error as { code?: number }).code === SDK_REQUEST_TIMEOUT)
    return {
      output: '',
      error: `upstream MCP server "${server}": call timed out after ${formatMs(call.timeoutMs)}`,
      exitCode: 124,
    };
  // The upstream's own words: without the "MCP error <code>: " our SDK client puts in front of them.
  return { output: '', error: `upstream MCP server "${server}": ${forwardedError(error).message}`, exitCode: 1 };
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
