import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** Requests answered by factorly's own handlers with nothing sent on their stream meanwhile. */
const QUIET_METHODS = new Set(['initialize', 'ping', 'tools/list']);

/**
 * Tool types whose providers never use a call's client link (no progress, log message, sampling or
 * elicitation travels on the call's stream). An upstream MCP tool forwards what its server sends; a
 * code tool's script may call one; a plugin's provider may do anything: all of those stream.
 */
const QUIET_TOOL_TYPES = new Set(['cli', 'rest']);

/** What the rule needs of a session: can its client be asked, and what kind of tool a name is. */
export interface QuietView {
  /** The client declared elicitation: a confirmation (or factorly.ask) may ask it on the call's stream. */
  canElicit(): boolean;
  /** Code mode: every call runs a script or searches the catalogue, so it may stream. */
  readonly codeMode: boolean;
  /** The type of the tool of that name this session may call, if any. */
  toolType(name: string): string | undefined;
}

/**
 * Nothing can be sent on this POST's stream before its answer: the message (one: batches are refused
 * before this) is a notification or a response, one of factorly's own quiet methods, or a
 * `tools/call` with no progress token and no task, of a cli or rest tool, from a client that cannot
 * be asked (no elicitation), so no confirmation can ask on the call's stream. Then the answer is
 * plain JSON; anything else is answered as an SSE stream.
 */
export function streamsNothing(message: unknown, session: QuietView): boolean {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return false;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (id === undefined) return true; // a notification or a response: answered 202, no stream either way
  if (typeof method !== 'string') return false;
  if (QUIET_METHODS.has(method)) return true;
  if (method !== 'tools/call' || session.codeMode || session.canElicit()) return false;
  if (typeof params !== 'object' || params === null) return false;
  const { name, task, _meta } = params as { name?: unknown; task?: unknown; _meta?: { progressToken?: unknown } };
  if (task !== undefined || _meta?.progressToken !== undefined || typeof name !== 'string') return false;
  // A name not (yet) in the catalogue may be an upstream's tool listed once the session's upstreams answer.
  const type = session.toolType(name);
  return type !== undefined && QUIET_TOOL_TYPES.has(type);
}

/** The parts of the SDK's web-standard transport the per-request choice reads and sets. */
interface WebTransport {
  _enableJsonResponse: boolean;
  _streamMapping: Map<string, { resolveJson?: unknown }>;
  _requestToStreamMapping: Map<unknown, string>;
  handlePostRequest(request: unknown, options?: { parsedBody?: unknown }): Promise<unknown>;
  send(message: Record<string, unknown>, options?: { relatedRequestId?: unknown }): Promise<void>;
}

/**
 * The SDK's Streamable HTTP transport answers every POST of a session the same way, by one flag
 * (`enableJsonResponse`). factorly chooses per POST: a body passed to `plain` before
 * `handleRequest` is answered as one JSON response, any other as an SSE stream. The flag is set
 * where the SDK reads it: when a POST is taken (from the body it was handed, so concurrent requests
 * of one session cannot mix), and before each message is sent (from the kind of stream its request
 * is answered on). Both reads happen before the SDK's first await (no event store is configured),
 * so another request cannot change the flag in between. Tied to the SDK version pinned in
 * package.json; the HTTP e2e tests check both answers and a mix of them in one session. When the
 * transport does not have the parts this needs, every POST streams, as the SDK does by default.
 */
export function answerPerRequest(transport: StreamableHTTPServerTransport): { plain(body: object): void } {
  const web = (transport as unknown as { _webStandardTransport?: Partial<WebTransport> })._webStandardTransport;
  if (!hasParts(web)) return { plain: () => undefined };
  const plainBodies = new WeakSet<object>();
  const takePost = web.handlePostRequest.bind(web);
  const send = web.send.bind(web);
  web.handlePostRequest = (request, options) => {
    const body = options?.parsedBody;
    web._enableJsonResponse = typeof body === 'object' && body !== null && plainBodies.has(body);
    return takePost(request, options);
  };
  web.send = (message, options) => {
    const answers = 'result' in message || 'error' in message;
    const requestId = answers ? message.id : options?.relatedRequestId;
    const streamId = requestId === undefined ? undefined : web._requestToStreamMapping.get(requestId);
    const stream = streamId === undefined ? undefined : web._streamMapping.get(streamId);
    web._enableJsonResponse = stream?.resolveJson !== undefined;
    return send(message, options);
  };
  return { plain: (body) => void plainBodies.add(body) };
}

function hasParts(web: Partial<WebTransport> | undefined): web is WebTransport {
  return (
    typeof web?._enableJsonResponse === 'boolean' &&
    web._streamMapping instanceof Map &&
    web._requestToStreamMapping instanceof Map &&
    typeof web.handlePostRequest === 'function' &&
    typeof web.send === 'function'
  );
}
