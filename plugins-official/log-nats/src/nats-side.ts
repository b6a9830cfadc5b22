import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { ObjectStore } from '@nats-io/obj';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SideStore } from 'factorly';
import { isApiError, type NatsLibs } from './nats-libs.js';

/** A node's connection to the servers, with what it learnt of the log's stream. */
export interface Connected {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** The log stream's replicas (what the store beside it is created with). */
  replicas: number;
  /** The stream's own cap on a message (`max_msg_size`), when it has one. */
  maxMessage?: number;
  /** The client libraries, loaded by the connection. */
  libs: NatsLibs;
}

/** The first byte of a value in the bucket: the value follows, or the name of the object that holds it. */
const INLINE = 0;
const IN_OBJECT = 1;

/**
 * What the log derives from a stream, kept beside it (`SideStore`): the JetStream KV bucket
 * `<stream>-derived` (one value per key, read from the bucket's leader: no direct gets from a
 * replica that may lag), and, for a value larger than one message may be (a big snapshot), the
 * object store of the same name, the bucket then holding the object's name. Both are created by the
 * first write that needs them, with the log stream's replicas (a short log never needs one). Nothing here is evidence: the log checks what it reads
 * against the stream (see `SideStore`), and a bucket lost costs a longer fold.
 */
export class NatsSideStore implements SideStore {
  private made?: Promise<KV>;
  private objects?: Promise<ObjectStore>;

  constructor(
    private readonly stream: string,
    private readonly connection: () => Promise<Connected>,
    private readonly room: () => Promise<number>,
    private readonly timeoutMs: number,
  ) {}

  get name(): string {
    return `${this.stream}-derived`;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const entry = await this.absentAsNone(async () => (await this.kv(false)).get(key), null);
    if (!entry || entry.operation !== 'PUT' || entry.value.length === 0) return undefined;
    const value = entry.value;
    if (value[0] === INLINE) return value.subarray(1);
    if (value[0] !== IN_OBJECT) return undefined;
    const object = Buffer.from(value.subarray(1)).toString('utf8');
    return (await (await this.store()).getBlob(object)) ?? undefined;
  }

  async put(key: string, value: Uint8Array): Promise<void> {
    const kv = await this.kv(true);
    if (value.length + 1 <= (await this.room())) {
      await kv.put(key, Buffer.concat([Buffer.of(INLINE), value]));
      return;
    }
    // The object first: the bucket never names one that is not all there.
    await (await this.store()).putBlob({ name: key }, value);
    await kv.put(key, Buffer.concat([Buffer.of(IN_OBJECT), Buffer.from(key, 'utf8')]));
  }

  async keys(prefix: string): Promise<string[]> {
    return this.absentAsNone(async () => {
      const keys: string[] = [];
      for await (const key of await (await this.kv(false)).keys(`${prefix}>`)) keys.push(key);
      return keys;
    }, []);
  }

  /** What `read` answers, or `none` while the bucket does not exist (nothing was ever kept: it is made by the first write). */
  private async absentAsNone<T>(read: () => Promise<T>, none: T): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (isApiError(error, 'StreamNotFound')) return none;
      throw error;
    }
  }

  /** The bucket; made first (once: a replicated stream of its own, with the log's whole timeout) when about to be written. */
  private kv(make: boolean): Promise<KV> {
    if (make && !this.made) {
      this.made = this.connection().then(async ({ nc, js, replicas, libs }) => {
        const { Kvm } = libs.kv;
        await new Kvm(libs.jetstream.jetstream(nc, { timeout: this.timeoutMs })).create(this.name, {
          history: 1,
          replicas,
          allow_direct: false,
        });
        return new Kvm(js).open(this.name, { allow_direct: false });
      });
      this.made.catch(() => (this.made = undefined));
      return this.made;
    }
    // Bound to by name, without asking the servers: a read of a bucket not made yet finds nothing.
    return (
      this.made ??
      this.connection().then(({ js, libs }) => new libs.kv.Kvm(js).open(this.name, { allow_direct: false }))
    );
  }

  private store(): Promise<ObjectStore> {
    this.objects ??= this.connection().then(async ({ nc, js, replicas, libs }) => {
      const { Objm } = libs.obj;
      await new Objm(libs.jetstream.jetstream(nc, { timeout: this.timeoutMs })).create(this.name, { replicas });
      return new Objm(js).open(this.name);
    });
    this.objects.catch(() => (this.objects = undefined));
    return this.objects;
  }
}
