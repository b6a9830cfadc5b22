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
    const [{ Server }, types] = await Promise.all([import('@modelcontextprotocol/sdk/server/index.js'), import('@modelcontextprotocol/sdk/types.js')]);
    const { ListToolsRequestSchema, CallToolRequestSchema, ResultSchema } = types;
    return {
      schemas: { ListToolsRequestSchema, CallToolRequestSchema, ResultSchema },
      // list_changed is real: the catalogue is reloaded when the config changes on disk.
      newServer: (info) => new Server(info, { capabilities: { tools: { listChanged: true } } }),
    };
  })();
  return loaded;
}
