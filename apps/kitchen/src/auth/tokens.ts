import { createHash, randomBytes } from 'node:crypto';

/** A fresh session token: 32 random bytes, base64url. Only its hash is stored. */
export function newSessionToken(random: (size: number) => Buffer = randomBytes): string {
  return random(32).toString('base64url');
}

/** SHA-256 is enough here: the token has 256 bits of entropy, nothing to stretch. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A password for the CLI to hand out: 15 random bytes, base64url (20 characters). */
export function newPassword(random: (size: number) => Buffer = randomBytes): string {
  return random(15).toString('base64url');
}
