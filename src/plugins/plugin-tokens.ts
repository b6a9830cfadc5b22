import { createToken, type Token } from '../base/token.js';
import { KernelTokens } from '../kernel/tokens.js';
import type { HostServices } from './host-services.js';

/**
 * What the host running the kernel (the CLI) provides besides the kernel's own services: the audit
 * queries, the chain check, promotion and tool editing its commands run, bound to the running kernel.
 */
export const HostTokens = {
  Services: createToken<HostServices>('host.services'),
} as const;

/** The tokens a plugin's registrar carries: the kernel's extension points and services, and the host's. */
export const PLUGIN_TOKENS = { ...KernelTokens, HostServices: HostTokens.Services } as const;
export type PluginTokens = typeof PLUGIN_TOKENS;

export type { Token };
