import { jetstream, jetstreamManager, JetStreamApiCodes, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import type { BatchAppended, BatchStream, StoredBatch } from 'factorly';
import type { NatsLogSettings } from './nats-settings.js';

interface Connected {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
}

/** How long the stream's servers remember a batch id, so a batch sent twice is stored once. */
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

/**
 * A project's batches on one subject of a JetStream stream. Each batch is one message (a 2.9 server
 * has no atomic multi-message publish), stored only while the subject's last message is still the
 * one the batch was sealed after (`Nats-Expected-Last-Subject-Sequence`) and at most once per id
 * (`Nats-Msg-Id`). Positions are the stream's sequence numbers.
 */
export class NatsBatchStream implements BatchStream {
  readonly origin: string;
  private connected?: Promise<Connected>;
  private closed = false;

  constructor(
    private readonly settings: NatsLogSettings,
    private readonly credentials: () => Promise<string | undefined>,
  ) {
    this.origin = `nats/${settings.stream}/${settings.subject}`;
  }

  async last(): Promise<number> {
    const { jsm } = await this.connection();
    const message = await jsm.streams.getMessage(this.settings.stream, { last_by_subj: this.settings.subject });
    return message?.seq ?? 0;
  }

  async append(payload: Uint8Array, id: string, after: number): Promise<BatchAppended> {
    const { js } = await this.connection();
    try {
      const ack = await js.publish(this.settings.subject, payload, { msgID: id, expect: { lastSubjectSequence: after }, timeout: this.requestMs() });
      return { position: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamWrongLastSequence) return { conflict: true };
      throw error;
    }
  }

  follow(after: number, deliver: (batch: StoredBatch) => void, failed: (error: unknown) => void): () => void {
    let stopped = false;
    let stop = (): void => {
      stopped = true;
    };
    void (async () => {
      const { js } = await this.connection();
      // An ordered consumer: in order, no acks, recreated by the client after a reconnect or a gap.
      const consumer = await js.consumers.get(this.settings.stream, {
        filter_subjects: this.settings.subject,
        ...(after > 0 ? { deliver_policy: 'by_start_sequence' as never, opt_start_seq: after + 1 } : {}),
      });
      const messages = await consumer.consume();
      stop = () => {
        stopped = true;
        void messages.close();
      };
      if (stopped) stop();
      for await (const message of messages) deliver({ position: message.seq, payload: message.data });
      if (!stopped) throw new Error(`the stream ${this.settings.stream} stopped delivering`);
    })().catch((error: unknown) => {
      if (!stopped && !this.closed) failed(error);
    });
    return () => stop();
  }

  async close(): Promise<void> {
    this.closed = true;
    const connected = await this.connected?.catch(() => undefined);
    await connected?.nc.drain().catch(() => connected.nc.close());
  }

  private requestMs(): number {
    return Math.min(this.settings.timeoutMs, 5000);
  }

  private connection(): Promise<Connected> {
    this.connected ??= this.connect();
    this.connected.catch(() => {
      // Tried again by the next call: the servers may be back.
      this.connected = undefined;
    });
    return this.connected;
  }

  private async connect(): Promise<Connected> {
    const creds = await this.credentials();
    const nc = await connect({
      servers: this.settings.servers,
      timeout: this.requestMs(),
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      name: `factorly ${this.origin}`,
      ...(creds ? { authenticator: credsAuthenticator(new TextEncoder().encode(creds)) } : {}),
    });
    try {
      const jsm = await jetstreamManager(nc, { timeout: this.requestMs() });
      await this.ensureStream(jsm);
      return { nc, jsm, js: jetstream(nc, { timeout: this.requestMs() }) };
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /** Creates the stream on first use; an existing one must take the project's subject. */
  private async ensureStream(jsm: JetStreamManager): Promise<void> {
    const { stream, subject, replicas } = this.settings;
    try {
      const info = await jsm.streams.info(stream);
      if (!info.config.subjects?.some((pattern) => subjectMatches(pattern, subject))) {
        throw new Error(`the stream ${stream} does not take the subject ${subject} (its subjects: ${(info.config.subjects ?? []).join(', ')})`);
      }
    } catch (error) {
      if (!(error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)) throw error;
      await jsm.streams.add({ name: stream, subjects: [subject], num_replicas: replicas, duplicate_window: DUPLICATE_WINDOW_NS, storage: 'file' as never });
    }
  }
}

/** Whether a stream subject pattern (`*` one token, `>` the rest) takes `subject`. */
function subjectMatches(pattern: string, subject: string): boolean {
  const want = pattern.split('.');
  const have = subject.split('.');
  for (let i = 0; i < want.length; i += 1) {
    if (want[i] === '>') return have.length > i;
    if (want[i] !== '*' && want[i] !== have[i]) return false;
  }
  return want.length === have.length;
}
