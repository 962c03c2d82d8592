import type { ErrorCode } from '../errors.js';
import {
  isBreakerFailure,
  type AttemptResult,
  type BreakerState,
  type ResolvedBreaker,
} from './attempt-result.js';
import type { BreakerStore } from './breaker-store.js';
import { probeLater, runProbe } from './breaker-probe.js';

/** A breaker whose state lives in a `BreakerStore` (shared by instances); same verdicts as cockatiel's. */
export class SharedBreaker {
  state: BreakerState = 'closed';
  #probe: (() => boolean | Promise<boolean>) | undefined;
  #probing = false;

  constructor(
    readonly tool: string,
    readonly settings: ResolvedBreaker,
    readonly store: BreakerStore,
    readonly onBreaker: ((tool: string, state: BreakerState) => void) | undefined,
  ) {}

  async run<T extends AttemptResult>(
    attempt: () => T | Promise<T>,
    refused: (code: ErrorCode, why: string) => T,
  ): Promise<T> {
    const { verdict, state } = await this.store.admit(this.tool, this.settings);
    this.#see(state);
    if (verdict === 'refuse') {
      return refused(
        'SERVICE_UNAVAILABLE',
        `${this.tool} is failing: its circuit breaker is open, so it was not called`,
      );
    }
    const probe = verdict === 'probe';
    const result = await attempt();
    // Stopped by the run: no verdict — but a probe cut short proves nothing, so the breaker opens again.
    if (result.byRun === true && !probe) return result;
    this.#see(
      await this.store.record(
        this.tool,
        this.settings,
        result.byRun === true || isBreakerFailure(result),
        probe,
      ),
    );
    return result;
  }

  /** Seen open: once `openMs` has passed, `probe` asks the store for the probe's turn. */
  probeWhenOpen(probe: () => boolean | Promise<boolean>): void {
    this.#probe = probe;
  }

  #see(state: BreakerState): void {
    if (state === this.state) return;
    this.state = state;
    this.onBreaker?.(this.tool, state);
    if (state === 'open') this.#scheduleProbe(this.settings.openMs);
  }

  #scheduleProbe(ms: number): void {
    const probe = this.#probe;
    if (probe === undefined || this.#probing) return;
    this.#probing = true;
    const again = (): void => this.#scheduleProbe(Math.min(this.settings.openMs, 5_000));
    probeLater(ms, async () => {
      let admitted;
      try {
        admitted = await this.store.admit(this.tool, this.settings);
      } catch (error) {
        // The store failed (a blip): probing goes on, a little later — never stops for good.
        this.#probing = false;
        again();
        throw error;
      }
      const { verdict, state } = admitted;
      this.#probing = false;
      if (verdict === 'pass') return this.#see(state); // closed meanwhile (another instance's probe)
      if (verdict === 'refuse') {
        // Still open, or another instance holds the probe's turn: look again a little later.
        this.state = state;
        return again();
      }
      const failed = !(await runProbe(probe));
      this.state = 'half_open';
      let recorded: BreakerState;
      try {
        recorded = await this.store.record(this.tool, this.settings, failed, true);
      } catch (error) {
        this.state = 'open';
        again();
        throw error;
      }
      this.#see(recorded);
    });
  }
}
