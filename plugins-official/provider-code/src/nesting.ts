/** How deep scripts may nest in one call tree: a script calling a code tool whose script calls another… */
export const MAX_SCRIPT_DEPTH = 5;

/**
 * The script runs in progress, by call id, with how deep each sits among running scripts. An inner
 * call's parent is the run that made it, so a run's depth is its parent run's plus one (0 when
 * its caller is no script). Each level holds an engine process while it waits for the next, so
 * the depth is capped, and a nested run must not wait for a free process (see SandboxBudget.nested).
 */
export class ScriptNesting {
  private readonly depths = new Map<string, number>();

  depthOf(parentId: string | undefined): number {
    const parent = parentId === undefined ? undefined : this.depths.get(parentId);
    return parent === undefined ? 0 : parent + 1;
  }

  async within<T>(callId: string, depth: number, run: () => Promise<T>): Promise<T> {
    this.depths.set(callId, depth);
    try {
      return await run();
    } finally {
      this.depths.delete(callId);
    }
  }
}
