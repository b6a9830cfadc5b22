import { FactorlyError } from '../base/errors.js';
import type { CallGateway, CallOutcome, CallRequest, CatalogChange } from '../contracts/gateway.js';
import type { ToolDefinition } from '../contracts/tool.js';

/**
 * The `CallGateway` handed to plugins at init, before the pipeline exists. The kernel binds it once
 * the registry and pipeline are built; a call before that is a lifecycle error.
 */
export class DeferredGateway implements CallGateway {
  private target?: CallGateway;

  bind(target: CallGateway): void {
    this.target = target;
  }

  call(request: CallRequest): Promise<CallOutcome> {
    return this.ready().call(request);
  }

  tools(sessionId?: string, options?: { held?: boolean }): ToolDefinition[] {
    return this.ready().tools(sessionId, options);
  }

  watchTools(listener: (change: CatalogChange) => void): () => void {
    return this.ready().watchTools(listener);
  }

  private ready(): CallGateway {
    if (!this.target) throw new FactorlyError('LIFECYCLE', 'tools cannot be called before the kernel is ready');
    return this.target;
  }
}
