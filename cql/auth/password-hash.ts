// bcrypt password hashes (Cassandra's salted_hash). bcryptjs is loaded on first use: only PasswordAuthenticator
// and roles given a password need it, and loading it at every start-up would slow restarts (docs/startup.md).
type Bcrypt = typeof import('bcryptjs').default;

let bcrypt: Promise<Bcrypt> | undefined;
const loadBcrypt = (): Promise<Bcrypt> => {
  bcrypt ??= import('bcryptjs').then((m) => m.default);
  return bcrypt;
};

export async function hashPassword(password: string, rounds: number): Promise<string> {
  return await (await loadBcrypt()).hash(password, rounds);
}

export async function passwordMatches(password: string, hash: string): Promise<boolean> {
  return await (await loadBcrypt()).compare(password, hash);
}
