import { spawn } from 'node:child_process';
import { Args, Flags } from '@oclif/core';
import { OAuthTokens, type OAuthClient, type OAuthProviderStatus } from '../contracts/oauth.js';
import { FactorlyError } from '../base/errors.js';
import { printableLine } from '../base/printable.js';
import type { Kernel } from '../kernel/kernel.js';
import { FactorlyCommand } from './base-command.js';
import { isWrapTokenKey, parseWrapArgs } from './wrap-args.js';

/** The login a command acts on: its name, and the client that holds it. */
export interface AuthTarget {
  client: OAuthClient;
  name: string;
}

/** Shared by `factorly auth login|status|logout|refresh`: the oauth plugin's client, and how a status reads. */
export abstract class AuthCommand extends FactorlyCommand {
  static providerArg = {
    provider: Args.string({
      description:
        "A provider of the config's oauth_providers, or an upstream MCP server (a type: mcp tool with a url).",
    }),
  };

  static jsonFlag = {
    json: Flags.boolean({ description: 'Print the result as one JSON object (states and expiry, never tokens).' }),
  };

  static urlFlag = {
    url: Flags.string({
      description: 'The MCP server `factorly wrap --url` serves (the same URL), instead of a name from the config.',
    }),
  };

  protected async oauth(configPath: string | undefined): Promise<OAuthClient> {
    // Logging in must not start upstream servers, which may need the very login being made.
    return clientOf(await this.kernel(configPath, { expandTools: false }));
  }

  /**
   * The login named on the command line: a provider or upstream of the config, or with `--url`, the
   * server `wrap --url` would serve, declared as wrap declares it (so the login is the one wrap reads).
   */
  protected async target(flags: { config?: string; url?: string }, name: string | undefined): Promise<AuthTarget> {
    if ((name === undefined) === (flags.url === undefined))
      throw new FactorlyError('USAGE', 'name a provider or upstream server, or give --url (not both)');
    if (flags.url === undefined) return { client: await this.oauth(flags.config), name: name! };
    const wrapped = parseWrapArgs(['--url', flags.url]);
    const yaml = JSON.stringify({ disable_builtins: true, tools: { [wrapped.name]: wrapped.entry } });
    const kernel = await this.kernel(flags.config, {
      expandTools: false,
      inlineConfig: { name: `wrap:${wrapped.name}`, yaml },
    });
    return { client: clientOf(kernel), name: wrapped.name };
  }

  protected printStatus(status: OAuthProviderStatus): void {
    const what = status.kind === 'upstream' ? `${status.name} (mcp)` : status.name;
    this.log(printableLine(`${what.padEnd(20)}  ${describeStatus(status)}`));
  }
}

function clientOf(kernel: Kernel): OAuthClient {
  const client = kernel.provided(OAuthTokens.Client);
  if (!client) throw new FactorlyError('USAGE', 'OAuth is not available: the oauth plugin is not loaded');
  return client;
}

/** `✓ valid (expires in 47m)`, `✗ expired (run: factorly auth login github)`, … */
export function describeStatus(status: OAuthProviderStatus, now = Date.now()): string {
  const login = `run: factorly auth login ${loginArgument(status)}`;
  switch (status.state) {
    case 'valid':
      return status.expiresAt === undefined
        ? '✓ valid (no expiry)'
        : `✓ valid (expires in ${duration(status.expiresAt - now)})`;
    case 'expired':
      return status.refreshable ? '✓ expired, refreshed on next use (refresh token stored)' : `✗ expired (${login})`;
    case 'invalid':
      return `✗ invalid token data in ${status.storedAs} (${login})`;
    default:
      return `✗ not authenticated (${login})`;
  }
}

/** What names the login on `auth login`'s command line: its name, or for `wrap --url`'s server, `--url <url>`. */
export function loginArgument(status: Pick<OAuthProviderStatus, 'name' | 'url' | 'storedAs'>): string {
  return status.url !== undefined && isWrapTokenKey(status.storedAs) ? `--url ${status.url}` : status.name;
}

function duration(ms: number): string {
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))}s`;
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes}m` : `${Math.round(minutes / 60)}h`;
}

/** Opens `url` in the person's browser; false when no opener could start. */
export function openBrowser(url: string): Promise<boolean> {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise((resolve) => {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}
