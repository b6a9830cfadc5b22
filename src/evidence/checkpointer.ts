import type { Recorded } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import { messageOf } from '../base/errors.js';
import { signLogCheckpoint, type SignedCheckpoint } from './checkpoint-sign.js';
import type { CheckpointSettings } from '../config/checkpoint-settings.js';
import { deliverCheckpoint, type Witnesses } from './witness.js';
import type { SecretBackend } from '../contracts/extensions.js';
import { loadBackendLogKey, loadLogKey, type LogSigner } from './log-key.js';

const BOOKKEEPING = new Set<string>(['writer.started']);

/**
 * Signs checkpoints without being asked: once `checkpointEvery` events were appended since the
 * last checkpoint, every `checkpointIntervalMs` while serving (when the log grew), and when the
 * process stops after appending: always for a server, and for a one-shot command (`factorly call`)
 * only when the newest checkpoint is older than `checkpointIntervalMs` (or there is none), so a
 * script running a thousand calls signs a few checkpoints, not a thousand. Each goes to
 * `.factorly/checkpoints/`, into the log as `log.checkpointed`, and to the witnesses. Work is
 * queued so checkpoints never overlap; a failure is reported once as a warning and never fails a call.
 */
export class Checkpointer {
  private last?: { size: number; at: number };
  private appendedSince = false;
  private serving = false;
  private queue: Promise<unknown> = Promise.resolve();
  private timer?: NodeJS.Timeout;
  private readonly extraDirs: string[] = [];
  private readonly warned = new Set<string>();

  private signer?: Promise<LogSigner>;

  constructor(
    private readonly log: () => EventLog,
    private readonly stateDir: string,
    private settings: CheckpointSettings,
    private readonly warn: (message: string) => void,
    /** The installed secret backend of a name, for `log.key: <backend>`. */
    private readonly backend: (name: string) => SecretBackend | undefined = () => undefined,
  ) {}

  /** The key checkpoints are signed with, as `log.key` says (made on first use). */
  key(origin: string): Promise<LogSigner> {
    this.signer ??=
      this.settings.key === 'file'
        ? Promise.resolve(loadLogKey(this.stateDir, origin)!)
        : loadBackendLogKey(this.backend(this.settings.key), this.settings.key, this.stateDir, origin);
    this.signer.catch(() => (this.signer = undefined));
    return this.signer;
  }

  /**
   * The verifier key this process signs with (made on first use, as at its first checkpoint), for
   * its `writer.started`; undefined, with a warning, when it cannot be had (the call goes on).
   */
  async announcedKey(): Promise<string | undefined> {
    try {
      const tree = await this.log().tree?.();
      return tree ? (await this.key(tree.origin)).verifierKey : undefined;
    } catch (error) {
      this.warnOnce(`checkpoint key not announced: ${messageOf(error)}`);
      return undefined;
    }
  }

  configure(settings: CheckpointSettings): void {
    if (settings.key !== this.settings.key) this.signer = undefined;
    this.settings = settings;
  }

  /** Also copy each checkpoint into `dir` (`--witness DIR`). */
  addWitnessDir(dir: string): void {
    this.extraDirs.push(dir);
  }

  /** Called with every event this process appended. */
  observe(event: Recorded): void {
    if (event.type === 'log.checkpointed') {
      this.noteCheckpoint(event.data.size, event.at);
      return;
    }
    // A process that only recorded itself has nothing worth a checkpoint of its own.
    if (!BOOKKEEPING.has(event.type)) this.appendedSince = true;
    const every = this.settings.checkpointEvery;
    // Only events that may have reached the next checkpoint queue any work.
    if (every > 0 && (this.last === undefined || event.seq - this.last.size >= every))
      void this.enqueue(async () => {
        if (event.seq - (await this.lastCheckpoint()).size >= every) await this.sign();
      });
  }

  /** While serving: a checkpoint every interval in which the log grew (other writers included). */
  keepSigning(): void {
    this.serving = true;
    const interval = this.settings.checkpointIntervalMs;
    if (interval <= 0 || this.timer) return;
    this.timer = setInterval(
      () =>
        void this.enqueue(async () => {
          if ((await this.log().head()).seq > (await this.lastCheckpoint()).size) await this.sign();
        }),
      interval,
    );
    this.timer.unref();
  }

  /** Signs one now (`factorly logs checkpoint`), after any queued one. */
  now(): Promise<SignedCheckpoint> {
    return this.enqueue(() => this.sign(), true) as Promise<SignedCheckpoint>;
  }

  /** At the end of the process: waits for queued work, then signs what this process appended since. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.queue;
    if (this.appendedSince)
      await this.enqueue(async () => {
        if (this.serving || (await this.lastCheckpointDue())) await this.sign();
      });
  }

  private async sign(): Promise<SignedCheckpoint> {
    this.appendedSince = false;
    const signed = await signLogCheckpoint(this.log(), this.stateDir, (origin) => this.key(origin));
    this.noteCheckpoint(signed.size, new Date().toISOString());
    for (const failure of await deliverCheckpoint(signed, this.witnesses())) this.warnOnce(failure);
    return signed;
  }

  private witnesses(): Witnesses {
    const dirs = [...(this.settings.witnessDir ? [this.settings.witnessDir] : []), ...this.extraDirs];
    return { dirs, command: this.settings.witness };
  }

  private async lastCheckpoint(): Promise<{ size: number; at: number }> {
    if (this.last) return this.last;
    const event = await this.log().lastOf('log.checkpointed');
    this.last ??= { size: event?.data.size ?? 0, at: event ? Date.parse(event.at) : Number.NEGATIVE_INFINITY };
    return this.last;
  }

  /** A one-shot command's stop: the newest checkpoint is older than the interval (0: never by time). */
  private async lastCheckpointDue(): Promise<boolean> {
    const interval = this.settings.checkpointIntervalMs;
    return interval > 0 && Date.now() - (await this.lastCheckpoint()).at >= interval;
  }

  private noteCheckpoint(size: number, at: string): void {
    this.last = {
      size: Math.max(this.last?.size ?? 0, size),
      at: Math.max(this.last?.at ?? Number.NEGATIVE_INFINITY, Date.parse(at)),
    };
  }

  private enqueue(work: () => Promise<unknown>, rethrow = false): Promise<unknown> {
    const run = this.queue.then(work);
    this.queue = run.catch((error: unknown) => this.warnOnce(`checkpoint not signed: ${messageOf(error)}`));
    return rethrow ? run : this.queue;
  }

  private warnOnce(message: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.warn(message);
  }
}
