import { writeStderrLine } from '@factorly/text-kit';
import { FactorlyError } from '@factorly/error-kit';
import { ShadowTokens, type ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { CallGateway, InterfaceOptions, PluginDefinition, SecretScope } from 'factorly';
import { McpTokens, type McpPassthrough } from './api.js';
import { CODE_TOOL, codeModeTools } from './code-mode.js';
import { ElicitationChannel } from './elicit-channel.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from './framing.js';
import { introductionOf } from './introduction.js';
import { ServeAuth } from './serve-auth.js';
import { agentsOf, checkServe, SERVE_SCHEMA, serveSettingsOf, type ServeSettings } from './serve-config.js';
import { SessionRegistry, type SessionLog } from './session-registry.js';
import type { SessionContext } from './session.js';

/** How long an HTTP session may sit with no request and no open stream before it is closed (its upstream connections with it). */
const DEFAULT_IDLE_MS = 30 * 60_000;

/** Its stderr lines quote agents and upstream servers (names, errors): escaped for the terminal. */
const warn = (message: string): void => writeStderrLine('factorly: ', message);

/**
 * Registers the `mcp` interface (`factorly serve` runs it over stdio or HTTP, `factorly wrap` over
 * stdio) and the elicitation person channel that asks its clients (confirmations and questions). Provides `McpTokens.Passthroughs`,
 * where providers of upstream servers put what those serve besides tools; reads the shadow plugin's
 * policies, when it is installed, to leave denied tools out of the list and mark governed ones, and
 * hands it each named token's own rules. Its config: the `serve:` block (named tokens, OAuth).
 */
export const plugin: PluginDefinition = {
  id: 'interface-mcp',
  apiVersion: '1',
  config: { key: 'serve', schema: SERVE_SCHEMA, check: checkServe },
  register(registrar) {
    const passthroughs = registrar.keyedRegistry<McpPassthrough>('mcp pass-through');
    registrar.provide(McpTokens.Passthroughs, passthroughs);
    registrar.registerInit({
      deps: {
        interfaces: registrar.tokens.Interfaces,
        gateway: registrar.tokens.CallGateway,
        channels: registrar.tokens.PersonChannels,
        openLog: registrar.tokens.LazyEventLog,
        connectionSecrets: registrar.tokens.ConnectionSecrets,
        policies: registrar.optional(ShadowTokens.Policies),
        agentRules: registrar.optional(ShadowTokens.AgentRules),
      },
      init({ interfaces, gateway, channels, openLog, connectionSecrets, policies, agentRules }, context) {
        const sessions = new SessionRegistry(() => openLog() as unknown as SessionLog, warn);
        channels.add(new ElicitationChannel(sessions), context.pluginId);
        const block = new ServeBlock(serveSettingsOf(context.config));
        // Each named token's tools and rules bind its agent: the shadow rules decide with them (and
        // re-derive past decisions with the block recorded then, which arrives here as a change).
        const contribute = (settings: ServeSettings) => agentRules?.contribute('serve.tokens', agentsOf(settings));
        contribute(block.settings);
        context.onConfig(async (value) => {
          contribute(serveSettingsOf(value));
          await block.change(serveSettingsOf(value));
        });
        const serve = async (options: InterfaceOptions, signal: AbortSignal) =>
          serveMcp(
            { gateway, sessions, passthrough: passthroughs.get('mcp'), policies, block, connectionSecrets },
            { ...options, token: await tokenOf(options, connectionSecrets) },
            signal,
          );
        interfaces.add('mcp', { name: 'mcp', serve }, context.pluginId);
      },
    });
  },
};

/** The HTTP token as given, with `{{vault:KEY}}` (or any secret reference) resolved, so it need not sit in a shell history. */
async function tokenOf(options: InterfaceOptions, connectionSecrets: SecretScope): Promise<string | undefined> {
  const token = typeof options.token === 'string' && options.token !== '' ? options.token : undefined;
  return token?.includes('{{') ? connectionSecrets.resolve(token) : token;
}

/** The `serve:` block in force, and who wants to hear when a reload changes it. */
class ServeBlock {
  private readonly listeners = new Set<(settings: ServeSettings) => Promise<void>>();

  constructor(public settings: ServeSettings) {}

  async change(settings: ServeSettings): Promise<void> {
    this.settings = settings;
    for (const listener of this.listeners) await listener(settings);
  }

  /** Listens until the returned function is called. */
  watch(listener: (settings: ServeSettings) => Promise<void>): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}

interface Parts {
  gateway: CallGateway;
  sessions: SessionRegistry;
  passthrough?: McpPassthrough;
  policies?: ShadowPolicies;
  block: ServeBlock;
  connectionSecrets: SecretScope;
}

async function serveMcp(
  { gateway, sessions, passthrough, policies, block, connectionSecrets }: Parts,
  options: InterfaceOptions,
  signal: AbortSignal,
): Promise<void> {
  const http = options.transport === 'http';
  const codeMode = options.codeMode === true;
  if (codeMode && !gateway.tools(undefined, { held: true }).some((tool) => tool.name === CODE_TOOL)) {
    throw new FactorlyError(
      'CONFIG_INVALID',
      `--code-mode runs programs with the ${CODE_TOOL} built-in, which this config turns off (disable_builtins / disabled_builtins)`,
    );
  }
  const introduction = introductionOf(
    { name: 'factorly', version: String(options.version ?? '0.0.0') },
    passthrough,
    options.mirror === true,
  );
  const context: SessionContext = {
    gateway,
    sessions,
    mode: http ? 'remote' : 'local',
    transport: http ? 'http' : 'stdio',
    codeMode: codeMode ? codeModeTools(gateway, policies) : undefined,
    passthrough,
    introduction,
    policies,
  };
  const maxMessageBytes =
    typeof options.maxMessageBytes === 'number' ? options.maxMessageBytes : DEFAULT_MAX_MESSAGE_BYTES;
  let unwatchBlock: (() => void) | undefined;
  const unwatch = gateway.watchTools((change) => {
    if ('error' in change) warn(`the edited config does not load, still serving the previous tools: ${change.error}`);
    else void sessions.toolsChanged(change.sessionId);
  });
  try {
    // The servers (and the SDK and zod under them) are loaded by `serve` only, not by every process that registers the interface.
    if (!http) return await (await import('./stdio-server.js')).serveStdio(context, { maxMessageBytes, warn }, signal);
    const { serveHttp } = await import('./http-server.js');
    const unnamed = typeof options.token === 'string' ? options.token : undefined;
    const auth = await ServeAuth.start(
      block.settings,
      unnamed,
      (reference) => connectionSecrets.resolve(reference),
      warn,
    );
    unwatchBlock = block.watch((settings) => auth.reconfigure(settings));
    if (!auth.get().required)
      warn(
        'WARNING: HTTP server has no authentication. Use --http-token (or FACTORLY_HTTP_TOKEN), serve.tokens or serve.oauth for production.',
      );
    await serveHttp(
      context,
      {
        maxMessageBytes,
        warn,
        host: String(options.host ?? '127.0.0.1'),
        port: Number(options.port ?? 0),
        auth: () => auth.get(),
        allowedOrigins: Array.isArray(options.allowedOrigins) ? options.allowedOrigins.map(String) : [],
        allowedHosts: Array.isArray(options.allowedHosts) ? options.allowedHosts.map(String) : [],
        idleMs: typeof options.idleMs === 'number' ? options.idleMs : DEFAULT_IDLE_MS,
        listening: (url) =>
          warn(`serving MCP over Streamable HTTP at ${url}${auth.get().required ? ' (bearer token required)' : ''}`),
      },
      signal,
    );
  } finally {
    unwatch();
    unwatchBlock?.();
  }
}

export default plugin;
