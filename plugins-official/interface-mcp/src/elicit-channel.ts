import type { ConfirmAnswer, ConfirmChannel, ConfirmRequest } from 'factorly';
import type { SessionRegistry } from './session-registry.js';

const PREVIEW_CHARS = 500;
/** The race in the kernel times the question out; the SDK's own 60 s request timeout must not cut it first. */
const NO_SDK_TIMEOUT_MS = 24 * 3_600_000;

/**
 * Asks the person behind an MCP client, by elicitation on the call's own stream, to allow a call
 * that session made. Approved only when the client accepts and `approve` is true (the reference
 * takes any accept as a yes). A call from a client that cannot elicit is not taken, and the reason
 * says so.
 */
export class ElicitationChannel implements ConfirmChannel {
  readonly name = 'mcp-elicitation';
  readonly order = 20;

  constructor(private readonly sessions: SessionRegistry) {}

  accepts(request: ConfirmRequest): boolean {
    return this.ours(request) && request.client?.capabilities.elicitation !== undefined;
  }

  whyNot(request: ConfirmRequest): string | undefined {
    if (!this.ours(request) || this.accepts(request)) return undefined;
    const client = this.sessions.get(request.sessionId)?.client;
    return `the MCP client ${client ? `"${client.name}"` : 'of this session'} does not support elicitation, so it cannot be asked`;
  }

  async ask(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer> {
    const params = {
      mode: 'form',
      message: messageFor(request),
      requestedSchema: {
        type: 'object',
        properties: {
          approve: {
            type: 'boolean',
            title: 'Allow this call',
            description: `Run ${request.tool} with the parameters shown`,
            default: false,
          },
        },
        required: ['approve'],
      },
    };
    const result = await request.client!.request('elicitation/create', params, signal, NO_SDK_TIMEOUT_MS);
    const content = result.content as { approve?: unknown } | undefined;
    const approved = result.action === 'accept' && content?.approve === true;
    const client = this.sessions.get(request.sessionId)?.client?.name ?? 'mcp client';
    const detail = result.action === 'accept' ? `, approve=${String(content?.approve)}` : '';
    return { approved, by: `${client} (elicitation: ${String(result.action)}${detail})` };
  }

  private ours(request: ConfirmRequest): boolean {
    return (
      request.iface === 'mcp' && this.sessions.get(request.sessionId) !== undefined && request.client !== undefined
    );
  }
}

/** Names the tool and why it needs a person, and shows the params (cut to a preview). */
export function messageFor(request: ConfirmRequest): string {
  const params = JSON.stringify(request.params, null, 2);
  const preview =
    params.length > PREVIEW_CHARS
      ? `${params.slice(0, PREVIEW_CHARS)}\n… (${params.length - PREVIEW_CHARS} more characters)`
      : params;
  return `Tool "${request.tool}" requires confirmation (${request.reason}). Allow this call?\nParameters:\n${preview}`;
}
