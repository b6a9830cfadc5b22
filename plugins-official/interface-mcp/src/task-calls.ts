import type { ClientLink } from 'factorly';
import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { McpCallResult } from './call-result.js';
import type { Asking, Mirror } from './links.js';

/** How often a client is told to poll a running task (the SDK's default is 1 s too). */
const POLL_INTERVAL_MS = 1_000;

type Store = TaskStore;
type Task = Awaited<ReturnType<Store['createTask']>>;

/** What of an upstream's task the agent's task takes on as it was granted. */
type Granted = Partial<Pick<Task, 'ttl' | 'pollInterval'>>;

/**
 * Task-augmented tool calls (MCP 2025-11-25) for one session: the call is answered at once with a
 * task, runs through the gateway like any call (governed, recorded, output-processed) and leaves its
 * result in the task store, where the SDK serves `tasks/get`, `tasks/result` and `tasks/list`.
 * `tasks/cancel` stops the call, which is then recorded as cancelled.
 */
export class TaskCalls {
  private readonly running = new Map<string, AbortController>();
  /** The ttl and pollInterval an upstream granted the task behind an agent's task, by the agent's task id. */
  private readonly granted = new Map<string, Granted>();

  /**
   * Wraps the session's store so that cancelling a task aborts the call behind it, and a task run
   * by an upstream shows the ttl and pollInterval that upstream granted.
   */
  watch(store: Store): Store {
    const { running, granted } = this;
    const updateTaskStatus = store.updateTaskStatus.bind(store);
    const getTask = store.getTask.bind(store);
    const listTasks = store.listTasks.bind(store);
    const asGranted = (task: Task): Task => ({ ...task, ...granted.get(task.taskId) });
    return Object.assign(store, {
      updateTaskStatus: async (...args: Parameters<Store['updateTaskStatus']>) => {
        await updateTaskStatus(...args);
        if (args[1] === 'cancelled')
          running.get(args[0])?.abort(new DOMException('the task was cancelled', 'AbortError'));
      },
      getTask: async (...args: Parameters<Store['getTask']>) => {
        const task = await getTask(...args);
        return task && asGranted(task);
      },
      listTasks: async (...args: Parameters<Store['listTasks']>) => {
        const page = await listTasks(...args);
        return { ...page, tasks: page.tasks.map(asGranted) };
      },
    });
  }

  /** Creates the task, starts the call and answers with the task (the result comes by `tasks/result`). */
  async start(
    store: RequestTaskStore,
    ttl: number | undefined,
    link: (task: { taskId: string; asking: Asking; mirror: Mirror }) => ClientLink,
    call: (client: ClientLink, signal: AbortSignal) => Promise<McpCallResult>,
  ): Promise<{ task: Record<string, unknown> }> {
    const task = await store.createTask({ ...(ttl === undefined ? {} : { ttl }), pollInterval: POLL_INTERVAL_MS });
    const controller = new AbortController();
    this.running.set(task.taskId, controller);
    const own = { taskId: task.taskId, asking: askingFor(store, task.taskId), mirror: this.mirror(store, task.taskId) };
    void call(link(own), controller.signal)
      .then((result) => store.storeTaskResult(task.taskId, result.isError ? 'failed' : 'completed', result))
      // A cancelled task is terminal already: its result has nowhere to go, and the call is recorded either way.
      .catch(() => undefined)
      .finally(() => this.running.delete(task.taskId));
    return { task: task as unknown as Record<string, unknown> };
  }

  /**
   * The upstream's task behind the agent's: its grant (ttl, pollInterval) is kept, and a status it
   * announces before the end (working, input_required, with its statusMessage) is the agent's task's
   * too, told to the agent; the end comes with the call's result.
   */
  private mirror(store: RequestTaskStore, taskId: string): Mirror {
    return async (upstream) => {
      const grant: Granted = {};
      if (typeof upstream.ttl === 'number' || upstream.ttl === null) grant.ttl = upstream.ttl;
      if (typeof upstream.pollInterval === 'number') grant.pollInterval = upstream.pollInterval;
      this.granted.set(taskId, { ...this.granted.get(taskId), ...grant });
      const { status, statusMessage } = upstream;
      if (status !== 'working' && status !== 'input_required') return;
      const message = typeof statusMessage === 'string' ? statusMessage : undefined;
      await store.updateTaskStatus(taskId, status, message).catch(() => undefined);
    };
  }

  /** Stops every task still running (the session is closing). */
  abortAll(): void {
    for (const controller of this.running.values())
      controller.abort(new DOMException('the session closed', 'AbortError'));
  }
}

/**
 * While at least one request of the task waits for the client, the task is `input_required`; then
 * `working` again. A task cancelled meanwhile stays cancelled (its status can no longer change).
 */
function askingFor(store: RequestTaskStore, taskId: string): Asking {
  let waiting = 0;
  const set = (status: 'input_required' | 'working'): Promise<void> =>
    store.updateTaskStatus(taskId, status).catch(() => undefined);
  return async (request) => {
    if (waiting++ === 0) await set('input_required');
    try {
      return await request();
    } finally {
      if (--waiting === 0) await set('working');
    }
  };
}
