/**
 * The signal a request to an upstream server is sent with: it aborts when `signal` does, with the
 * reason the server is told (the SDK sends `String(reason)` in `notifications/cancelled`). An
 * agent's own reason reaches the server as the agent sent it (the kernel carries it as the
 * cancellation's `cause`); otherwise the server reads why factorly stopped the call, without
 * "AbortError: " in front.
 */
export function relayingSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
  if (!signal) return undefined;
  const relay = new AbortController();
  const abort = (): void => relay.abort(upstreamReason(signal.reason));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return relay.signal;
}

function upstreamReason(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  const cause = (reason as { cause?: unknown } | undefined)?.cause;
  if (typeof cause === 'string') return cause;
  return reason instanceof Error ? reason.message : String(reason);
}
