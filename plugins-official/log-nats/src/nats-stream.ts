import { FactorlyError } from '@factorly/error-kit';
import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import type { BatchAppended, BatchStream, StoredBatch } from 'factorly';
import type { NatsLogSettings } from './nats-settings.js';
import { isApiError, natsLibs } from './nats-libs.js';
import { NatsSideStore, type Connected } from './nats-side.js';
import { IMMUTABLE_STREAM, mutableSettings, mutableStreamProblem } from './stream-policy.js';

/** Bytes of a message kept for the headers sent with it (`Nats-Msg-Id`, `Nats-Expected-Last-Sequence`). */
const HEADERS_ROOM = 1024;
/** The smallest message a log can live with: a fragment's header and some of the batch. */
const SMALLEST_PAYLOAD = 8 * 1024;
/** Messages a range read asks the server for at a time. */
const READ_AHEAD = 256;

/** How long the stream's servers remember a batch id, so a batch sent twice is stored once. */
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

/**
 * A project's batches on a JetStream stream of its own (one subject). Each message (a batch, or a
 * fragment or commit of one too large for a message: a 2.9 server has no atomic multi-message
 * publish, see `batch-fragments.ts`) is stored only while the stream's last message is still the
 * one it was sent after (`Nats-Expected-Last-Sequence`, which a clustered stream checks against the
 * writes in flight too; the per-subject check does not, before 2.9.21) and at most once per id
 * (`Nats-Msg-Id`). Positions are the stream's sequence numbers. Single messages are read from the
 * stream's leader (`STREAM.MSG.GET`), ranges through an ordered consumer; what the log derives is
 * kept beside the stream in a KV bucket and its object store (`NatsSideStore`).
 */
export class NatsBatchStream implements BatchStream {
  readonly origin: string;
  readonly side: NatsSideStore;
  private connected?: Promise<Connected>;
  private closed = false;

  constructor(
    private readonly settings: NatsLogSettings,
    private readonly credentials: () => Promise<string | undefined>,
    /** Told once when a stream that lets events go is used anyway (`allow_mutable_stream`). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.origin = `nats/${settings.stream}/${settings.subject}`;
    this.side = new NatsSideStore(
      settings.stream,
      () => this.connection(),
      () => this.maxPayload(),
      settings.timeoutMs,
    );
  }

  async last(): Promise<number> {
    const { jsm } = await this.connection();
    return (await jsm.streams.info(this.settings.stream)).state.last_seq;
  }

  async append(payload: Uint8Array, id: string, after: number): Promise<BatchAppended> {
    const { js } = await this.connection();
    try {
      const ack = await js.publish(this.settings.subject, payload, {
        msgID: id,
        expect: { lastSequence: after },
        timeout: this.requestMs(),
      });
      return { position: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      if (isApiError(error, 'StreamWrongLastSequence')) return { conflict: true };
      throw error;
    }
  }

  async firstLost(after: number): Promise<number | undefined> {
    const { jsm } = await this.connection();
    const { state } = await jsm.streams.info(this.settings.stream, { deleted_details: true });
    if (state.last_seq <= after) return undefined;
    // A purge moves the first sequence past what it removed; a deleted message is listed.
    if (state.first_seq > after + 1) return after + 1;
    return (state.deleted ?? []).filter((seq) => seq > after).sort((a, b) => a - b)[0];
  }

  async get(position: number): Promise<StoredBatch | undefined> {
    const { jsm } = await this.connection();
    // STREAM.MSG.GET is answered by the stream's leader: never a replica that lags behind.
    const message = await jsm.streams.getMessage(this.settings.stream, { seq: position });
    return message && message.subject === this.settings.subject
      ? { position: message.seq, payload: message.data }
      : undefined;
  }

  async *read(from: number, to: number): AsyncIterable<StoredBatch> {
    const { js, jsm } = await this.connection();
    // The first message at or after `from`: none (all deleted, or past the end) and a consumer would wait for ever.
    const first = await jsm.streams.getMessage(this.settings.stream, {
      seq: Math.max(from, 1),
      next_by_subj: this.settings.subject,
    } as never);
    if (!first || first.seq > to) return;
    const consumer = await js.consumers.get(this.settings.stream, {
      filter_subjects: this.settings.subject,
      deliver_policy: 'by_start_sequence' as never,
      opt_start_seq: first.seq,
    });
    const messages = await consumer.consume({ max_messages: READ_AHEAD });
    try {
      for await (const message of messages) {
        if (message.seq > to) return;
        yield { position: message.seq, payload: message.data };
        if (message.seq >= to || message.info.pending === 0) return;
      }
    } finally {
      void messages.close();
    }
  }

  /**
   * What one message may carry: the server's `max_payload` (and the stream's `max_msg_size`, when
   * set), less room for the headers. A server that takes less than a fragment needs is refused.
   */
  async maxPayload(): Promise<number> {
    const { nc, maxMessage } = await this.connection();
    const server = nc.info?.max_payload ?? 1024 * 1024;
    const room = Math.min(server, maxMessage ?? server) - HEADERS_ROOM;
    if (room < SMALLEST_PAYLOAD)
      throw new FactorlyError(
        'CONFIG_INVALID',
        `the NATS server takes messages of at most ${Math.min(server, maxMessage ?? server)} bytes (max_payload, the stream's max_msg_size): a log needs at least ${SMALLEST_PAYLOAD + HEADERS_ROOM}`,
      );
    return room;
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
      if (!stopped) throw new FactorlyError('UPSTREAM_FAILED', `the stream ${this.settings.stream} stopped delivering`);
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

  /** One request's wait: a few fit in an append's `timeout`, so a request lost in a leader election is sent again. */
  private requestMs(): number {
    return Math.max(Math.min(Math.round(this.settings.timeoutMs / 4), 2000), 100);
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
    const libs = await natsLibs();
    const { connect, credsAuthenticator } = libs.transport;
    const { jetstream, jetstreamManager } = libs.jetstream;
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
      const { num_replicas: replicas, max_msg_size: size } = await this.ensureStream(jsm);
      const maxMessage = size !== undefined && size > 0 ? size : undefined;
      return { nc, jsm, js: jetstream(nc, { timeout: this.requestMs() }), replicas, maxMessage, libs };
    } catch (error) {
      await nc.close();
      throw error;
    }
  }

  /**
   * Creates the stream on first use, immutable (see IMMUTABLE_STREAM); an existing one must hold the
   * project's subject and nothing else, and keep every message (or the config must allow it not to).
   */
  private async ensureStream(jsm: JetStreamManager): Promise<StreamConfig> {
    const { stream, subject, replicas, allowMutableStream } = this.settings;
    try {
      const info = await jsm.streams.info(stream);
      const subjects = info.config.subjects ?? [];
      if (subjects.length !== 1 || subjects[0] !== subject) {
        throw new FactorlyError(
          'CONFIG_INVALID',
          `the stream ${stream} takes ${subjects.join(', ') || 'no subjects'}, not only ${subject}: give each project's log a stream of its own`,
        );
      }
      const found = mutableSettings(info.config);
      if (found.length === 0) return info.config;
      if (!allowMutableStream) throw new FactorlyError('CONFIG_INVALID', mutableStreamProblem(stream, found, false));
      this.warn(mutableStreamProblem(stream, found, true));
      return info.config;
    } catch (error) {
      if (!isApiError(error, 'StreamNotFound')) throw error;
      const created = await jsm.streams.add({
        name: stream,
        subjects: [subject],
        num_replicas: replicas,
        duplicate_window: DUPLICATE_WINDOW_NS,
        storage: 'file' as never,
        ...IMMUTABLE_STREAM,
      });
      return created.config;
    }
  }
}
