import { FactorlyError } from '@factorly/error-kit';

/**
 * An HTTP upstream that refuses us for want of credentials answers 401 with a `WWW-Authenticate`
 * challenge (MCP authorization: `Bearer resource_metadata="…"`). The transport's `fetch` is watched
 * for it, so a refused connection is told apart from a broken one: the source `needs_login`, not
 * `failing`. The login itself is the oauth plugin's (`factorly auth login <entry>`, or an agent's
 * URL elicitation); its auth provider goes to the transport as the SDK's `authProvider`.
 */
export interface LoginChallenge {
  /** The `WWW-Authenticate` header as the server sent it (absent when it sent none). */
  header?: string;
  resourceMetadata?: string;
}

/** A `fetch` that tells `onChallenge` about every 401 the server answers. */
export function challengeWatchingFetch(onChallenge: (challenge: LoginChallenge) => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401) onChallenge(readChallenge(response.headers.get('www-authenticate') ?? undefined));
    return response;
  };
}

function readChallenge(header: string | undefined): LoginChallenge {
  const metadata = header && /\bresource_metadata\s*=\s*(?:"([^"]*)"|([^\s,]+))/i.exec(header);
  const resourceMetadata = metadata ? (metadata[1] ?? metadata[2]) : undefined;
  return { ...(header === undefined ? {} : { header }), ...(resourceMetadata ? { resourceMetadata } : {}) };
}

/** The server refused the connection until someone logs in to it; `cause` is why the stored login (if any) did not do. */
export class LoginRequiredError extends FactorlyError {
  constructor(
    server: string,
    readonly challenge: LoginChallenge,
    cause?: unknown,
  ) {
    const where = challenge.resourceMetadata
      ? `; its authorization is described at ${challenge.resourceMetadata}`
      : challenge.header
        ? ` (WWW-Authenticate: ${challenge.header})`
        : '';
    // A login that exists but failed (its refresh refused, an authorization server not on HTTPS) says why.
    const failed = FactorlyError.isInstance(cause) && cause.code === 'AUTH_FAILED' ? `: ${cause.message}` : '';
    const run = failed ? '' : ` (run: factorly auth login ${server})`;
    super(
      'UPSTREAM_FAILED',
      `upstream MCP server "${server}" answered 401 Unauthorized: it needs a login${failed}${run}${where}`,
      {
        data: {
          needsLogin: true,
          ...(challenge.resourceMetadata ? { resourceMetadata: challenge.resourceMetadata } : {}),
        },
      },
    );
  }
}
