import type { SessionPrincipal } from 'factorly';

/**
 * Who made an HTTP request, as its bearer token says. A named token (`serve.tokens`) and an OAuth
 * access token (`serve.oauth`) name an agent: its calls are recorded under `agentId`. The unnamed
 * `--http-token` names no one: each session it opens is an agent of its own, as without a token.
 */
export type Principal = SessionPrincipal;

/** Why a request's credentials were not accepted: the status, and (for OAuth) RFC 6750's error code. */
export interface AuthRefusal {
  status: 401 | 403 | 503;
  message: string;
  error?: 'invalid_token' | 'insufficient_scope';
  /** For `insufficient_scope`: the scopes a token needs. */
  scope?: string;
}

export type AuthResult = { principal?: Principal } | { refusal: AuthRefusal };

/** A named token, resolved: the agent it stands for and the digest of its value. */
export interface NamedToken {
  name: string;
  value: string;
}
