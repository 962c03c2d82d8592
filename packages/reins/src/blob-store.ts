/**
 * Where observations too large for the prompt and the event log are kept (seed 001, lesson
 * 5): the run keeps a reference, the model sees a truncated summary. Implementations: the
 * in-process `memoryBlobStore` (core), `fileBlobStore(dir)` (`reins/node`, the embedded
 * default of apps), a PostgreSQL table in shared mode.
 */
export interface BlobStore {
  /** Stores `json` under `ref` (overwriting is allowed: the same act stores the same value). */
  put(ref: string, json: string): Promise<void>;
  /** The stored JSON, or `undefined` when there is none (never stored, evicted, expired). */
  get(ref: string): Promise<string | undefined>;
}

/** A large observation's reference, as the observation and the run record carry it. */
export interface BlobRef {
  readonly ref: string;
  /** Size of the stored JSON in UTF-8 bytes. */
  readonly bytes: number;
}

/** The reference of one act's result: unique per run and act. */
export function blobRefFor(runId: string, actId: string): string {
  return `blob:${encodeURIComponent(runId)}/${encodeURIComponent(actId)}`;
}

/**
 * Reads a large result back by its reference: the parsed value, or `undefined` when the
 * store no longer has it.
 */
export async function readLargeField(store: BlobStore, ref: string): Promise<unknown> {
  const json = await store.get(ref);
  return json === undefined ? undefined : (JSON.parse(json) as unknown);
}

/**
 * In-process blobs, oldest dropped first beyond `maxBytes` (default 256 MiB): the default
 * of a run without a store, for one process and tests.
 */
export function memoryBlobStore(options: { readonly maxBytes?: number } = {}): BlobStore {
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  const blobs = new Map<string, string>();
  let held = 0;
  return {
    put: async (ref, json) => {
      const old = blobs.get(ref);
      if (old !== undefined) held -= old.length;
      blobs.delete(ref);
      blobs.set(ref, json);
      held += json.length;
      for (const [key, value] of blobs) {
        if (held <= maxBytes || key === ref) break;
        blobs.delete(key);
        held -= value.length;
      }
    },
    get: async (ref) => blobs.get(ref),
  };
}

/** UTF-8 size of a string, without encoding it. */
export function utf8Bytes(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x800) {
      // A surrogate pair is 4 bytes for 2 code units; other code points from U+0800 are 3.
      bytes += code >= 0xd800 && code <= 0xdbff ? 1 : 2;
      if (code >= 0xd800 && code <= 0xdbff) i++;
    } else if (code >= 0x80) bytes += 1;
  }
  return bytes;
}
