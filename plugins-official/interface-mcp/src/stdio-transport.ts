import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkText, errorReply, oversized, type ErrorReply, type RequestId } from './framing.js';

/** How much of a message too big to read is kept, to find its id. */
const SEEN_BYTES = 256;

/**
 * MCP over stdio, one JSON-RPC message per line, each checked before the SDK sees it (see framing.ts):
 * a line that is not a valid message is answered with the JSON-RPC error it deserves, and a line
 * longer than `maxBytes` is skipped to its end without being held in memory, answered with an error
 * and noted on stderr. Either way the session carries on.
 */
export class FramedStdioTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private parts: Buffer[] = [];
  private size = 0;
  /** While skipping a line too big to read: its size so far, and its first and last bytes. */
  private skipping?: { bytes: number; head: string; tail: Buffer };

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    private readonly maxBytes: number,
    private readonly warn: (message: string) => void,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.ondata);
    this.input.on('error', this.onInputError);
  }

  send(message: JSONRPCMessage | ErrorReply): Promise<void> {
    return new Promise((resolve) =>
      this.output.write(`${JSON.stringify(message)}\n`) ? resolve() : this.output.once('drain', resolve),
    );
  }

  async close(): Promise<void> {
    this.input.off('data', this.ondata);
    this.input.off('error', this.onInputError);
    // A stream that has been read from stays in flowing mode, and its handle keeps the process
    // alive after the last listener is gone: pausing it lets `serve` and `wrap` exit on SIGTERM.
    this.input.pause();
    this.parts = [];
    this.onclose?.();
  }

  private readonly onInputError = (error: Error): void => this.onerror?.(error);

  private readonly ondata = (chunk: Buffer | string): void => {
    let rest = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let end = rest.indexOf(0x0a); ; end = rest.indexOf(0x0a)) {
      const piece = end === -1 ? rest : rest.subarray(0, end);
      if (this.skipping) this.skip(piece);
      else if (this.size + piece.length > this.maxBytes) this.startSkipping(piece);
      else {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (end === -1) return;
      this.lineEnded();
      rest = rest.subarray(end + 1);
    }
  };

  private startSkipping(piece: Buffer): void {
    const held = Buffer.concat([...this.parts, piece]);
    this.skipping = { bytes: 0, head: held.subarray(0, SEEN_BYTES).toString('utf8'), tail: Buffer.alloc(0) };
    this.parts = [];
    this.size = 0;
    this.skip(held);
  }

  private skip(piece: Buffer): void {
    const skipping = this.skipping!;
    skipping.bytes += piece.length;
    skipping.tail = Buffer.concat([skipping.tail, piece]).subarray(-SEEN_BYTES);
  }

  private lineEnded(): void {
    const skipped = this.skipping;
    this.skipping = undefined;
    if (skipped) {
      this.warn(
        `refused a message of ${skipped.bytes} bytes on stdin: over the limit of ${this.maxBytes} bytes (--max-message-size); the session goes on`,
      );
      void this.send(
        oversized(skipped.bytes, this.maxBytes, { head: skipped.head, tail: skipped.tail.toString('utf8') }),
      );
      return;
    }
    const line = Buffer.concat(this.parts).toString('utf8').replace(/\r$/, '');
    this.parts = [];
    this.size = 0;
    if (line.trim() === '') return;
    const checked = checkText(line);
    const refused = 'message' in checked ? sdkRefusal(checked.message) : undefined;
    if (refused) void this.send(refused);
    else if ('reply' in checked) void this.send(checked.reply);
    else if ('drop' in checked) this.warn(`ignored ${checked.drop} on stdin`);
    else this.onmessage?.(checked.message as JSONRPCMessage);
  }
}

/**
 * A request the SDK's own schema refuses (a `_meta` that is not an object, a progress token of the
 * wrong type) would be dropped without an answer over stdio: it is answered -32600 with its id,
 * naming what is wrong. (Over HTTP the SDK's transport answers such a body itself.)
 */
function sdkRefusal(message: Record<string, unknown>): ErrorReply | undefined {
  if (typeof message.method !== 'string' || !('id' in message)) return undefined;
  // checkMessage has checked the rest of what the schema asks: it is asked only about a `_meta`, or
  // a result or error beside the method (the schema is strict), not a second time about every request.
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  if (meta === undefined && !('result' in message) && !('error' in message)) return undefined;
  const parsed = JSONRPCRequestSchema.safeParse(message);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  const where = issue?.path.map(String).join('.') || 'the request';
  const what = (issue?.message ?? 'not accepted').replace(/\s+/g, ' ');
  return errorReply(
    message.id as RequestId,
    'REQUEST_INVALID',
    `Invalid Request: ${where} is not what MCP takes in a ${message.method} request (${what})`,
  );
}
