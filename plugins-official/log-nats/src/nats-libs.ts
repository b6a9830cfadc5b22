import type * as Jetstream from '@nats-io/jetstream';
import type * as Kv from '@nats-io/kv';
import type * as Obj from '@nats-io/obj';
import type * as Transport from '@nats-io/transport-node';

/** The NATS client libraries the engine uses. */
export interface NatsLibs {
  jetstream: typeof Jetstream;
  kv: typeof Kv;
  obj: typeof Obj;
  transport: typeof Transport;
}

let loading: Promise<NatsLibs> | undefined;
let loaded: NatsLibs | undefined;

/**
 * The NATS client libraries, loaded by the first connection: this plugin is loaded by every full
 * start of factorly (to offer `log: {engine: nats}`), and a node whose log is not on NATS never
 * needs them (~25 ms of each such start).
 */
export function natsLibs(): Promise<NatsLibs> {
  loading ??= Promise.all([
    import('@nats-io/jetstream'),
    import('@nats-io/kv'),
    import('@nats-io/obj'),
    import('@nats-io/transport-node'),
  ]).then(([jetstream, kv, obj, transport]) => (loaded = { jetstream, kv, obj, transport }));
  return loading;
}

/** A JetStream API error with that code (none exists before the libraries are loaded). */
export function isApiError(error: unknown, code: 'StreamWrongLastSequence' | 'StreamNotFound'): boolean {
  if (!loaded) return false;
  const { JetStreamApiError, JetStreamApiCodes } = loaded.jetstream;
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes[code];
}
