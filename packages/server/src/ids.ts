/** Run ids: random UUIDv4 (Node ≥ 19 and every browser have `crypto.randomUUID`). */
export const uuidV4Like = (): string => crypto.randomUUID();
