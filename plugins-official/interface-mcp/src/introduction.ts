import type { McpPassthrough } from './api.js';
import type { Introduction } from './sdk.js';

/**
 * What factorly's MCP server says of itself at initialize. Its tools can change while it serves
 * (config reloads, upstream list changes), so it declares `tools.listChanged`; everything else it
 * declares is what the upstream servers behind it declared (see McpPassthrough.capabilities).
 * Mirroring one server (`wrap`) it introduces itself as that server: its server info and
 * instructions. Otherwise it is factorly, with each upstream's instructions under the upstream's name.
 */
export function introductionOf(
  factorly: Introduction['info'],
  passthrough: McpPassthrough | undefined,
  mirror: boolean,
): Introduction {
  const capabilities = { ...passthrough?.capabilities(), tools: { listChanged: true } };
  const upstreams = passthrough?.introductions() ?? [];
  const [only] = upstreams;
  if (mirror && upstreams.length === 1 && only!.info) {
    return {
      info: only!.info as Introduction['info'],
      capabilities,
      ...(only!.instructions === undefined ? {} : { instructions: only!.instructions }),
    };
  }
  const sections = upstreams
    .filter((upstream) => upstream.instructions)
    .map((upstream) => `## ${upstream.server}\n\n${upstream.instructions}`);
  return { info: factorly, capabilities, ...(sections.length > 0 ? { instructions: sections.join('\n\n') } : {}) };
}
