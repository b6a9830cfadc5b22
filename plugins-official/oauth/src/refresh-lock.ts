import { join } from 'node:path';
import { messageOf } from '@factorly/error-kit';
import { acquireFileLock } from '@factorly/process-kit/file-lock';
import { authFailed, loginRequired, usable } from './login-errors.js';
import { expiresSoon, type TokenBundle } from './token-bundle.js';
import type { TokenPlace, TokenStore } from './token-store.js';

/**
 * A new access token, under the login's lock (`.factorly/oauth-<name>.lock`, across processes):
 * refresh tokens rotate, so two processes must not spend the same one. Whoever waited re-reads the
 * bundle first and uses the one the holder stored; only when it still holds the `refused` token (or
 * one about to expire) is `grant` asked for a new one, which is stored before the lock is let go.
 */
export async function renewUnderLock(
  parts: { store: TokenStore; stateDir: string },
  place: TokenPlace,
  refused: string,
  grant: (current: TokenBundle & { refresh_token: string }) => Promise<TokenBundle>,
): Promise<TokenBundle> {
  const { store, stateDir } = parts;
  const lock = await acquireFileLock(join(stateDir, `oauth-${place.name}`), { staleMs: 15_000, waitMs: 30_000 }).catch(
    (error: unknown) => {
      throw authFailed(place, `another factorly process holds its refresh lock (${messageOf(error)})`);
    },
  );
  try {
    const current = usable(place, await store.read(place));
    if (current.access_token !== refused && !expiresSoon(current)) return current;
    if (!current.refresh_token) throw loginRequired(place, 'its access token expired and no refresh token is stored');
    const fresh = await grant(current as TokenBundle & { refresh_token: string });
    await store.write(place, fresh);
    return fresh;
  } finally {
    await lock.release();
  }
}
