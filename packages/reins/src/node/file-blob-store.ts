import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from '../blob-store.js';

/**
 * Blobs as files under `dir` (created when needed): one file per reference, named by the
 * SHA-256 of the reference, so no reference can name a path outside `dir`. Written to a
 * temporary file and renamed, so a reader never sees half a blob.
 */
export function fileBlobStore(dir: string): BlobStore {
  const pathOf = (ref: string): string => join(dir, `${createHash('sha256').update(ref).digest('hex')}.json`);
  let made: Promise<unknown> | undefined;
  return {
    put: async (ref, json) => {
      await (made ??= mkdir(dir, { recursive: true }));
      const path = pathOf(ref);
      const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
      await writeFile(temporary, json, 'utf8');
      await rename(temporary, path);
    },
    get: async (ref) => {
      try {
        return await readFile(pathOf(ref), 'utf8');
      } catch (thrown) {
        if ((thrown as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw thrown;
      }
    },
  };
}
