import {
  conversationContext,
  type ConversationStore,
  type HistoryBudget,
  type JsonValue,
  type RunRecord,
} from 'reins';
import { ApiError } from './http-error.js';
import type { Logger } from './logging.js';

export interface ConversationsOptions extends HistoryBudget {
  /** Where turns are kept (`memoryConversationStore()` by default; `sqlConversationStore` of `@reins/stores`). */
  readonly store: ConversationStore;
  /** A conversation is forgotten this long after its last turn; default 30 days. */
  readonly ttlMs?: number;
  /**
   * A turn keeps its structured answer's data (the cards a client showed live) up to this many
   * UTF-8 bytes of JSON; a larger one is not kept (the answer text still is). Default 16 384.
   */
  readonly maxAnswerDataBytes?: number;
}

/** What a turn was about (seed 001 §2.3 task state), written by the app from a run's record. */
export type TurnAbout = (record: RunRecord) => { readonly [key: string]: JsonValue } | undefined;

const ID = /^[A-Za-z0-9_-]{1,100}$/;
export const DEFAULT_CONVERSATION_TTL_MS = 30 * 86_400_000;
export const DEFAULT_MAX_ANSWER_DATA_BYTES = 16_384;
const UTF8 = new TextEncoder();

/**
 * Conversations on the server: a run names one (or gets a new one), sees its earlier turns
 * within the history budget, and becomes its next turn — written when it starts and again,
 * with its answer and task state, when it ends.
 */
export class Conversations {
  constructor(
    readonly options: ConversationsOptions,
    private readonly logger: Logger,
  ) {}

  get store(): ConversationStore {
    return this.options.store;
  }

  /**
   * Opens the turn of run `runId`: the conversation's earlier turns as context. A given id of
   * someone else's conversation is a 404, like one that does not exist and cannot be made.
   * `fresh`: the id was just made here (none was given), so there are no earlier turns to read.
   */
  async begin(
    ownerId: string,
    conversationId: string,
    turn: { runId: string; query: string; at: number },
    fresh = false,
  ): Promise<{ context: string | undefined }> {
    const existing = fresh ? undefined : await this.store.get(conversationId, ownerId, turn.at);
    const context = existing === undefined ? undefined : conversationContext(existing.turns, this.options);
    const added = await this.store.addTurn(
      conversationId,
      ownerId,
      { ...turn, status: 'running' },
      this.#ttl,
    );
    if (!added) throw new ApiError(404, 'NOT_FOUND', 'no such conversation');
    return { context };
  }

  /**
   * The run of a turn that `begin` opened did not start (its row could not be stored, the queue
   * was away …): a conversation made for it is deleted; in one that was named, the turn is
   * written as an `error` saying it did not start — never left `running`. Logged, not thrown.
   */
  async notStarted(
    ownerId: string,
    conversationId: string,
    turn: { runId: string; query: string; at: number },
    fresh: boolean,
    why: string,
  ): Promise<void> {
    try {
      if (fresh) await this.store.delete(conversationId, ownerId);
      else
        await this.store.addTurn(
          conversationId,
          ownerId,
          { ...turn, status: 'error', answer: `(the run did not start: ${why})` },
          this.#ttl,
        );
    } catch (error) {
      this.logger.warn({ conversationId, runId: turn.runId, err: error }, 'conversation turn not closed');
    }
  }

  /** Writes the turn's outcome once its run has ended (a failure to store it is logged, not thrown). */
  async end(
    ownerId: string,
    conversationId: string,
    turn: { runId: string; query: string; at: number },
    record: RunRecord,
    about: TurnAbout | undefined,
  ): Promise<void> {
    try {
      const aboutTurn = about?.(record);
      const answerData = this.#answerData(record);
      await this.store.addTurn(
        conversationId,
        ownerId,
        {
          ...turn,
          status: record.status,
          answer: record.final_answer,
          ...(aboutTurn === undefined ? {} : { about: aboutTurn }),
          ...(answerData === undefined ? {} : { answerData }),
        },
        this.#ttl,
      );
    } catch (error) {
      this.logger.warn({ conversationId, runId: turn.runId, err: error }, 'conversation turn not stored');
    }
  }

  /** The structured answer's data as JSON, when there is some and it is within the bound. */
  #answerData(record: RunRecord): JsonValue | undefined {
    if (record.format !== 'structured' || record.answer_data === undefined) return undefined;
    const json = JSON.stringify(record.answer_data) as string | undefined;
    if (json === undefined) return undefined;
    const max = this.options.maxAnswerDataBytes ?? DEFAULT_MAX_ANSWER_DATA_BYTES;
    if (json.length > max || UTF8.encode(json).byteLength > max) return undefined;
    return JSON.parse(json) as JsonValue;
  }

  get #ttl(): number {
    return this.options.ttlMs ?? DEFAULT_CONVERSATION_TTL_MS;
  }
}

/** A conversation id from a request body: absent, or 1–100 of `A-Za-z0-9_-` (else a 400). */
export function readConversationId(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !ID.test(value)) {
    throw new ApiError(400, 'INVALID_PARAMETER', 'conversationId: 1–100 characters of A-Z a-z 0-9 _ -');
  }
  return value;
}
