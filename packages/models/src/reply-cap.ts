import type { ModelFailure } from 'reins';
import type { HttpResponse } from './http-post.js';

/** The default cap on one model reply's body: 256 KB, far above any answer a step needs. */
export const DEFAULT_MAX_MODEL_REPLY_BYTES = 262_144;

/**
 * Thrown inside an adapter when a reply's body passes its cap; the adapter turns it into
 * `LIMIT_EXCEEDED` failure data (see `failureFromThrown`), never lets it escape `call`.
 */
export class ReplyTooLarge extends Error {
  readonly maxBytes: number;

  constructor(maxBytes: number) {
    super(`the provider's reply passed ${maxBytes} bytes (maxModelReplyBytes); reading stopped`);
    this.name = 'ReplyTooLarge';
    this.maxBytes = maxBytes;
  }

  get failure(): ModelFailure {
    return { code: 'LIMIT_EXCEEDED', message: this.message };
  }
}

/** A cap option as given, checked: a NaN or negative cap would silently be no cap at all. */
export function replyCap(maxBytes: number | undefined): number {
  const cap = maxBytes ?? DEFAULT_MAX_MODEL_REPLY_BYTES;
  if (!Number.isSafeInteger(cap) || cap <= 0) {
    throw new RangeError(`maxModelReplyBytes must be a positive whole number of bytes, got ${String(cap)}`);
  }
  return cap;
}

/**
 * A body that throws `ReplyTooLarge` the moment more than `maxBytes` arrived. The throw ends
 * the `for await` over the source, whose `return()` destroys a node stream (and so its
 * socket): nothing past the cap is read or kept.
 */
export async function* cappedBody(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<Uint8Array, void, undefined> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new ReplyTooLarge(maxBytes);
    yield chunk;
  }
}

/**
 * A whole (non-streamed) reply as text, at most `maxBytes` of it. `text(maxBytes)` stops
 * reading and closes the connection just past the cap, so a longer result means the reply
 * was cut: `ReplyTooLarge`, not a truncated body that happens to fail JSON parsing.
 */
export async function replyText(response: HttpResponse, maxBytes: number): Promise<string> {
  const text = await response.text(maxBytes);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw new ReplyTooLarge(maxBytes);
  return text;
}
