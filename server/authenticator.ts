// How a connection authenticates after STARTUP. The protocol is SASL-shaped: the server names
// its authenticator class in AUTHENTICATE, then each AUTH_RESPONSE token goes to a per-
// connection negotiator that answers with a challenge or with success (AUTH_SUCCESS). A failed
// login is thrown as AuthenticationError (BAD_CREDENTIALS).

export type SaslStep =
  | { readonly challenge: Buffer }
  | { readonly success: true; readonly user: string; readonly token?: Buffer | null };

export interface SaslNegotiator {
  /** Evaluates the client's token (null when the client sent a null [bytes]). */
  evaluateResponse(token: Buffer | null): SaslStep | Promise<SaslStep>;
}

export interface AuthenticatingClient {
  readonly remoteAddress: string;
  readonly remotePort: number;
}

export interface Authenticator {
  /** Java class name sent in AUTHENTICATE; drivers pick their auth provider by it. */
  readonly className: string;
  /** False: STARTUP is answered with READY, no login. */
  requireAuthentication(): boolean;
  newSaslNegotiator(client: AuthenticatingClient): SaslNegotiator;
}

/** No authentication, like Cassandra's default AllowAllAuthenticator. */
export class AllowAllAuthenticator implements Authenticator {
  readonly className = 'org.apache.cassandra.auth.AllowAllAuthenticator';

  requireAuthentication(): boolean {
    return false;
  }

  newSaslNegotiator(): SaslNegotiator {
    throw new Error('AllowAllAuthenticator does not negotiate');
  }
}
