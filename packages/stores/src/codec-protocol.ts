import type { JsonObject } from './codec/json.js';

/**
 * What the store's thread and its codec thread (`codec-worker.ts`) say to each other. Events
 * cross as their JSON form (`plainJson`), so the thread encodes exactly what this one would.
 * Messages are handled in order; only `encode` is answered.
 */
export type CodecRequest =
  | { readonly type: 'start'; readonly runId: string }
  | {
      readonly type: 'resume';
      readonly runId: string;
      readonly bodies: readonly string[];
      /** The texts the bodies refer to: hash → JSON form. */
      readonly texts: readonly (readonly [string, string])[];
    }
  | {
      readonly type: 'encode';
      readonly id: number;
      readonly runId: string;
      readonly events: readonly JsonObject[];
    }
  | { readonly type: 'drop'; readonly runId: string };

export type CodecReply =
  | {
      readonly id: number;
      readonly ok: true;
      readonly bodies: string[];
      readonly usedTexts: (readonly [string, string])[];
    }
  | { readonly id: number; readonly ok: false; readonly message: string };
