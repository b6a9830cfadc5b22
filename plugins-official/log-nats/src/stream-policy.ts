import type { StreamConfig } from '@nats-io/jetstream';

/**
 * What a stream holding a log must be: nothing in it can go away. JetStream lets a message be
 * deleted or the stream purged unless `deny_delete` and `deny_purge` are set (and, once set, they
 * cannot be unset), and drops old messages by itself under a limit or another retention policy.
 */
export const IMMUTABLE_STREAM: Partial<StreamConfig> = {
  deny_delete: true,
  deny_purge: true,
  allow_rollup_hdrs: false,
  retention: 'limits' as never,
  max_msgs: -1,
  max_bytes: -1,
  max_age: 0,
  max_msgs_per_subject: -1,
};

/** The settings of `config` that let a message of the stream go away, as `key: value` (empty: none). */
export function mutableSettings(config: Partial<StreamConfig>): string[] {
  const found: string[] = [];
  if (config.deny_delete !== true) found.push(`deny_delete: ${String(config.deny_delete ?? false)}`);
  if (config.deny_purge !== true) found.push(`deny_purge: ${String(config.deny_purge ?? false)}`);
  if (config.allow_rollup_hdrs === true) found.push('allow_rollup_hdrs: true');
  if (config.retention !== undefined && String(config.retention) !== 'limits')
    found.push(`retention: ${String(config.retention)}`);
  for (const key of ['max_msgs', 'max_bytes', 'max_age', 'max_msgs_per_subject'] as const) {
    const value = config[key];
    if (typeof value === 'number' && value > 0) found.push(`${key}: ${value}`);
  }
  return found;
}

/** Why a stream that lets history go is refused (or, allowed by the config, warned about). */
export function mutableStreamProblem(stream: string, found: readonly string[], allowed: boolean): string {
  const what = `the stream ${stream} lets events be removed from the log (${found.join(', ')})`;
  return allowed
    ? `${what}: used because log.allow_mutable_stream is true; logs verify reports any batch that goes missing`
    : `${what}: a deleted batch would take events out of the log. Give the log a new stream (factorly creates it with deny_delete and deny_purge), or set log.allow_mutable_stream: true to use this one anyway`;
}
