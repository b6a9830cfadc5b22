import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthorizationServer } from './oauth-server.js';

/**
 * An MCP server protected by the authorization server (MCP authorization): RFC 9728 metadata naming
 * it, a 401 with `resource_metadata` for a missing or dead token, and one tool answering whose token it got.
 */
export async function startResourceServer(
  authority: () => AuthorizationServer,
  seen: string[],
): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const idp = authority();
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url?.startsWith('/.well-known/oauth-protected-resource')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ resource: `${base}/mcp`, authorization_servers: [idp.issuer], scopes_supported: ['openid'] }),
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token) seen.push(token);
    void (token ? idp.subjectOf(token) : Promise.resolve(undefined)).then(async (subject) => {
      if (!subject) {
        const challenge = `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`;
        response.writeHead(401, { 'WWW-Authenticate': challenge }).end();
        return;
      }
      const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
      mcp.registerTool('whoami', { description: 'Who the token belongs to.' }, async () => ({
        content: [{ type: 'text', text: `you are ${subject}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => void transport.close());
      await mcp.connect(transport);
      await transport.handleRequest(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp` };
}
