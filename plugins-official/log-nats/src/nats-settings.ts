import type { LogOptionProblem } from 'factorly';

/** The `log:` keys of `engine: nats`. */
export interface NatsLogSettings {
  /** NATS server URLs (`nats://host:4222`); the client moves between them. */
  servers: string[];
  /** The JetStream stream the events are kept in (created when missing). */
  stream: string;
  /** The subject the stream keeps the log under (the stream holds this project's log alone). */
  subject: string;
  /** A `.creds` file's text or a reference to it (`{{vault:NATS_CREDS}}`), resolved when the log is first used. */
  credentials?: string;
  /** Servers that keep a copy of each event (a new stream's replicas); 3 survives one server lost. */
  replicas: number;
  /** How long a call waits for the stream to take its events before it is refused (ms). */
  timeoutMs: number;
  /**
   * Use an existing stream that lets messages be deleted or purged (or drops them by a limit), with a
   * warning, instead of refusing it. Verification still reports a lost batch as tampering.
   */
  allowMutableStream: boolean;
}

const KEYS = ['servers', 'stream', 'subject', 'credentials', 'replicas', 'timeout', 'allow_mutable_stream'] as const;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const SUBJECT = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const SERVER = /^(nats|tls|ws|wss):\/\/[^\s/]+$|^[^\s:/]+:\d+$/;

/** The first bad key of `log:` for the nats engine (see `LogEngine.check`). */
export function natsProblem(options: Readonly<Record<string, unknown>>): LogOptionProblem | undefined {
  for (const key of Object.keys(options)) {
    if (!(KEYS as readonly string[]).includes(key))
      return { key, problem: `not a key of the nats log engine (${KEYS.join(', ')})` };
  }
  const { servers, stream, subject, credentials, replicas, timeout, allow_mutable_stream: mutable } = options;
  if (
    !Array.isArray(servers) ||
    servers.length === 0 ||
    !servers.every((url) => typeof url === 'string' && SERVER.test(url))
  ) {
    return {
      key: 'servers',
      problem: `expected a list of server URLs (nats://host:port), got ${JSON.stringify(servers)}`,
    };
  }
  if (typeof stream !== 'string' || !NAME.test(stream))
    return {
      key: 'stream',
      problem: `expected a stream name (letters, digits, - and _), got ${JSON.stringify(stream)}`,
    };
  if (subject !== undefined && (typeof subject !== 'string' || !SUBJECT.test(subject))) {
    return {
      key: 'subject',
      problem: `expected a subject without wildcards (factorly.events.myproject), got ${JSON.stringify(subject)}`,
    };
  }
  if (credentials !== undefined && (typeof credentials !== 'string' || credentials === '')) {
    return {
      key: 'credentials',
      problem: 'expected the text of a .creds file or a secret reference such as "{{vault:NATS_CREDS}}"',
    };
  }
  if (
    replicas !== undefined &&
    !(Number.isInteger(replicas) && (replicas as number) >= 1 && (replicas as number) <= 5)
  ) {
    return { key: 'replicas', problem: `expected a whole number from 1 to 5, got ${JSON.stringify(replicas)}` };
  }
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) >= 100)) {
    return {
      key: 'timeout',
      problem: `expected a whole number of milliseconds (at least 100), got ${JSON.stringify(timeout)}`,
    };
  }
  if (mutable !== undefined && typeof mutable !== 'boolean')
    return { key: 'allow_mutable_stream', problem: `expected true or false, got ${JSON.stringify(mutable)}` };
  return undefined;
}

/** Options already accepted by `natsProblem`, with defaults. */
export function natsSettingsOf(options: Readonly<Record<string, unknown>>): NatsLogSettings {
  const stream = options.stream as string;
  return {
    servers: options.servers as string[],
    stream,
    subject: (options.subject as string | undefined) ?? `factorly.${stream}.events`,
    credentials: options.credentials as string | undefined,
    replicas: (options.replicas as number | undefined) ?? 1,
    timeoutMs: (options.timeout as number | undefined) ?? 10_000,
    allowMutableStream: options.allow_mutable_stream === true,
  };
}
