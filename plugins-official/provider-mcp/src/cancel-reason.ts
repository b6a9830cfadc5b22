/**
 * The signal a request to an upstream server is sent with: it aborts when `signal` does, with the
 * reason the server is told (the SDK sends `String(reason)` in `notifications/cancelled`). An
 * agent's own reason reaches the server as the agent sent it (the kernel carries it as the
 * cancellation's `cause`); otherwise the server reads why factorly stopped the call, without
 * "AbortError: " in front.
 *
 * `release` once the request is answered: the SDK never takes its listener off the signal, and the
 * kernel aborts a call's signal when the call ends, which would tell the server to cancel a request
 * it already answered (one more message each way per call, for nothing).
 */
export function relayingSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; release(): void } {
  if (!signal) return { release: () => undefined };
  const relay = new AbortController();
  const abort = (): void => relay.abort(upstreamReason(signal.reason));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return { signal: relay.signal, release: () => signal.removeEventListener('abort', abort) };
}

function upstreamReason(reason: unknown): string {
  if (typeof reason === 'string') return reason;
  const cause = (reason as { cause?: unknown } | undefined)?.cause;
  if (typeof cause === 'string') return cause;
  return reason instanceof Error ? reason.message : String(reason);
}
