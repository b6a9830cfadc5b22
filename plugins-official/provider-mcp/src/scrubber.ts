import { JsonRpcError } from '@factorly/error-kit';
import type { OutputProcessor, SecretScope, ToolDefinition } from 'factorly';

/**
 * What passes between an agent and an upstream outside a tool call's output (forwarded results and
 * errors, the server's log messages, progress and requests) goes through the output processors too:
 * as JSON text on the `structured` stream, with the secrets providers resolved at boot (an upstream's
 * env, URL, headers), so the scrubber replaces any a server echoes; shaping stages (filters,
 * truncation) leave that stream alone.
 */
export class Scrubber {
  constructor(
    private readonly processors: () => readonly OutputProcessor[],
    private readonly connectionSecrets: SecretScope,
  ) {}

  async value<T>(value: T, tool: ToolDefinition): Promise<T> {
    const secrets = this.connectionSecrets.resolved();
    if (secrets.size === 0 || value === undefined) return value;
    const text = JSON.stringify(value);
    const scrubbed = await this.run(text, tool, 'structured');
    if (scrubbed === text) return value;
    try {
      return JSON.parse(scrubbed) as T;
    } catch {
      throw JsonRpcError.of(
        'SECRET_WITHHELD',
        `an answer from upstream MCP server "${tool.name}" held a secret that could not be redacted cleanly, so it was withheld`,
      );
    }
  }

  text(text: string, tool: ToolDefinition): Promise<string> {
    return this.connectionSecrets.resolved().size === 0 ? Promise.resolve(text) : this.run(text, tool, 'error');
  }

  private async run(text: string, tool: ToolDefinition, stream: 'structured' | 'error'): Promise<string> {
    const secrets = this.connectionSecrets.resolved();
    let out = text;
    for (const processor of this.processors()) out = await processor.process(out, { tool, secrets, stream });
    return out;
  }
}
