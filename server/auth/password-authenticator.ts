// Cassandra's PasswordAuthenticator: SASL PLAIN (token = [authzid] NUL authcid NUL password) checked against
// the bcrypt hash in the role store, then ClientState.login's can_login check. bcrypt runs asynchronously
// (bcryptjs yields to the event loop between rounds), so a brute-force attempt costs its ~2^10 rounds and
// other connections keep being served.

import type { AccessControl } from '../../cql/auth/access-control.js';
import { passwordMatches } from '../../cql/auth/password-hash.js';
import { AuthenticationError } from '../../cql/errors.js';
import type { Authenticator, SaslNegotiator, SaslStep } from '../authenticator.js';

const NUL = 0;

/** PlainTextSaslAuthenticator.decodeCredentials, with Cassandra's messages. */
export function decodePlainCredentials(bytes: Buffer): { username: string; password: string } {
  let user: Buffer | undefined;
  let pass: Buffer | undefined;
  let end = bytes.length;
  for (let i = bytes.length - 1; i >= 0; i--) {
    if (bytes[i] !== NUL) continue;
    if (pass === undefined) pass = bytes.subarray(i + 1, end);
    else if (user === undefined) user = bytes.subarray(i + 1, end);
    else {
      throw new AuthenticationError(
        'Credential format error: username or password is empty or contains NUL(\\0) character',
      );
    }
    end = i;
  }
  if (pass === undefined || pass.length === 0) throw new AuthenticationError('Password must not be null');
  if (user === undefined || user.length === 0) throw new AuthenticationError('Authentication ID must not be null');
  return { username: user.toString('utf8'), password: pass.toString('utf8') };
}

export class PasswordAuthenticator implements Authenticator {
  readonly className = 'org.apache.cassandra.auth.PasswordAuthenticator';

  constructor(private readonly access: AccessControl) {}

  requireAuthentication(): boolean {
    return true;
  }

  newSaslNegotiator(): SaslNegotiator {
    return { evaluateResponse: (token) => this.authenticate(token) };
  }

  private async authenticate(token: Buffer | null): Promise<SaslStep> {
    const { username, password } = decodePlainCredentials(token ?? Buffer.alloc(0));
    const role = this.access.roles.get(username);
    const hash = role?.saltedHash;
    let ok = false;
    if (hash) {
      try {
        ok = await passwordMatches(password, hash);
      } catch {
        ok = false; // a malformed hash rejects the login, as BCrypt.checkpw failing does
      }
    }
    if (!ok) throw new AuthenticationError(`Provided username ${username} and/or password are incorrect`);
    // ClientState.login
    if (!this.access.roles.get(username)?.canLogin) {
      throw new AuthenticationError(`${username} is not permitted to log in`);
    }
    return { success: true, user: username, token: null };
  }
}
