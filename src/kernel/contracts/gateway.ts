import type { Interface, Params } from '../../events/catalog.js';
import type { ToolDefinition, ToolResult } from './tool.js';

export interface CallRequest {
  tool: string;
  params: Params;
  iface: Interface;
  agentId?: string;
  sessionId?: string;
  parentId?: string;
  rootId?: string;
  /** The call this one re-runs (`factorly logs replay`). */
  replayedFrom?: string;
}

export interface CallOutcome extends ToolResult {
  callId: string;
  status: 'success' | 'error' | 'blocked';
  durationMs: number;
}

/**
 * The way into the call pipeline for plugins: interfaces (MCP, web UI) and code tools whose
 * scripts call other tools. Usable once the kernel is ready; calling it earlier throws.
 */
export interface CallGateway {
  call(request: CallRequest): Promise<CallOutcome>;
  /** Every registered tool, hidden ones included. */
  tools(): ToolDefinition[];
}
