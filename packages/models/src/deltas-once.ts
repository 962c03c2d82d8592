/**
 * Streamed text over several tries of one model step (retries, a fallback): the listener gets
 * each character of the step's text once. A later try's deltas are held back until its text has
 * passed what the listener was already sent, then only the new part is forwarded; a try whose
 * text differs from what was sent forwards nothing more (its whole text is in the step's result).
 * Without this, a stream cut mid-way and tried again showed its first part twice.
 */
export class DeltasOnce {
  readonly #listener: (text: string) => void;
  /** What the listener has been sent, over every try. */
  #sent = '';

  constructor(listener: (text: string) => void) {
    this.#listener = listener;
  }

  /** The `onDelta` of one try. */
  forTry(): (text: string) => void {
    let seen = '';
    let diverged = false;
    return (text: string): void => {
      if (diverged || typeof text !== 'string' || text === '') return;
      seen += text;
      const sent = this.#sent;
      if (seen.length <= sent.length) {
        if (!sent.startsWith(seen)) diverged = true;
        return;
      }
      if (!seen.startsWith(sent)) {
        diverged = true;
        return;
      }
      this.#sent = seen;
      this.#listener(seen.slice(sent.length));
    };
  }

  /** Whether any text reached the listener. */
  get streamed(): boolean {
    return this.#sent !== '';
  }
}

/** `request` with a per-try `onDelta` from `deltas` (unchanged when the caller listens to none). */
export function withTryDeltas<R extends { readonly onDelta?: ((text: string) => void) | undefined }>(
  request: R,
  deltas: DeltasOnce | undefined,
): R {
  return deltas === undefined ? request : { ...request, onDelta: deltas.forTry() };
}
