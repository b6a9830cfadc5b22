import { spawn } from 'node:child_process';
import { Args, Flags } from '@oclif/core';
import { OAuthTokens, type OAuthClient, type OAuthProviderStatus } from '../contracts/oauth.js';
import { FactorlyError } from '../base/errors.js';
import { printableLine } from '../base/printable.js';
import { FactorlyCommand } from './base-command.js';

/** Shared by `factorly auth login|status|logout|refresh`: the oauth plugin's client, and how a status reads. */
export abstract class AuthCommand extends FactorlyCommand {
  static providerArg = {
    provider: Args.string({ description: "A provider of the config's oauth_providers.", required: true }),
  };

  static jsonFlag = {
    json: Flags.boolean({ description: 'Print the result as one JSON object (states and expiry, never tokens).' }),
  };

  protected async oauth(configPath: string | undefined): Promise<OAuthClient> {
    // Logging in must not start upstream servers, which may need the very login being made.
    const kernel = await this.kernel(configPath, { expandTools: false });
    const client = kernel.provided(OAuthTokens.Client);
    if (!client) throw new FactorlyError('USAGE', 'OAuth is not available: the oauth plugin is not loaded');
    return client;
  }

  protected printStatus(status: OAuthProviderStatus): void {
    this.log(printableLine(`${status.name.padEnd(20)}  ${describeStatus(status)}`));
  }
}

/** `✓ valid (expires in 47m)`, `✗ expired (run: factorly auth login github)`, … */
export function describeStatus(status: OAuthProviderStatus, now = Date.now()): string {
  const login = `run: factorly auth login ${status.name}`;
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

function duration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  if (minutes < 1) return `${Math.max(0, Math.round(ms / 1000))}s`;
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
