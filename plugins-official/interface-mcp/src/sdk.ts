import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { SdkSchemas } from './session.js';

/** The parts of the MCP SDK a serving interface uses, loaded on first use (not at every CLI boot). */
export interface Sdk {
  schemas: SdkSchemas;
  newServer(info: { name: string; version: string }): Server;
}

let loaded: Promise<Sdk> | undefined;

export function loadSdk(): Promise<Sdk> {
  loaded ??= (async () => {
    const [{ Server }, { Protocol }, types] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/index.js'),
      import('@modelcontextprotocol/sdk/shared/protocol.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const { ListToolsRequestSchema, CallToolRequestSchema, ResultSchema } = types;
    return {
      schemas: {
        ListToolsRequestSchema,
        CallToolRequestSchema,
        ResultSchema,
        // The request is parsed once against the SDK's schema (bad input is still refused with
        // InvalidParams). The SDK Server's own tools/call wrapper would parse it a second time and
        // then validate the result, which toMcpResult builds to that schema from an outcome the
        // kernel has already validated: two zod passes per call for nothing, on the hot path.
        onToolCall: (server, handler) => Protocol.prototype.setRequestHandler.call(server, CallToolRequestSchema, handler as never),
      },
      // list_changed is real: the catalogue is reloaded when the config changes on disk.
      newServer: (info) => new Server(info, { capabilities: { tools: { listChanged: true } } }),
    };
  })();
  return loaded;
}
