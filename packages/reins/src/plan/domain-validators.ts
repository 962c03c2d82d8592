import type { AnyTool } from '../tool.js';
import type { Candidate, Plan, PlanProblem, PlanStep } from './plan-schema.js';
import { refText, valueAt } from './resolve-refs.js';

/**
 * A business rule on plan steps, registered per agent (`validators`), run before anything
 * executes. It returns problems for one step (the step id is filled in); a problem with
 * `ask` becomes a question for the user. Seed 001 §2.1: a finance agent checks ID-number and
 * bank-card formats, a government one region codes, a claims one hospital codes — each by
 * swapping validators, never by touching the planner.
 */
export interface DomainValidator {
  readonly name: string;
  check(
    step: PlanStep,
    ctx: { readonly tool: AnyTool; readonly plan: Plan },
  ): readonly Omit<PlanProblem, 'stepId'>[];
}

export interface CodeEntry {
  /** The code the system needs, e.g. `BJXH001`. */
  readonly value: string;
  /** Its name for people, e.g. `北京协和医院`. */
  readonly label: string;
  /** Other names people use for it (a match on any makes it a candidate). */
  readonly aliases?: readonly string[];
}

export interface CodeWhitelistOptions {
  readonly name: string;
  /** The input field holding the code (dotted path). */
  readonly field: string;
  /** Actions whose steps are checked (default: every step with the field). */
  readonly actions?: readonly string[];
  readonly codes: readonly CodeEntry[];
  /** What the code names, for the question (e.g. "hospital"). */
  readonly noun: string;
}

/**
 * The field must hold one of the listed codes. A name instead of a code ("协和") is ambiguous
 * when it matches several entries' labels or aliases: the user is asked to pick one (the
 * candidates are those entries). A value matching nothing is asked for again.
 */
export function codeWhitelist(options: CodeWhitelistOptions): DomainValidator {
  const known = new Set(options.codes.map((c) => c.value));
  return {
    name: options.name,
    check(step) {
      const value = fieldValue(step, options.field, options.actions);
      if (value === undefined || known.has(value)) return [];
      const text = value.trim().toLowerCase();
      const candidates: Candidate[] = options.codes
        .filter((c) =>
          [c.label, ...(c.aliases ?? [])].some((name) => {
            const n = name.toLowerCase();
            return text !== '' && (n.includes(text) || text.includes(n));
          }),
        )
        .map((c) => ({ value: c.value, label: c.label }));
      if (candidates.length > 0) {
        return [
          {
            code: 'ambiguous_value',
            field: options.field,
            message: `${options.field} ${JSON.stringify(value)} is not a ${options.noun} code; it matches ${candidates.length}: ${candidates.map((c) => `${c.label} (${c.value})`).join(', ')}`,
            ask: {
              question: `Which ${options.noun} do you mean by "${value}": ${candidates.map((c) => `${c.label} (${c.value})`).join(', ')}?`,
              candidates,
            },
          },
        ];
      }
      return [
        {
          code: 'invalid_value',
          field: options.field,
          message: `${options.field} ${JSON.stringify(value)} is not a known ${options.noun} code`,
          ask: {
            question: `"${value}" is not a ${options.noun} I know. Which ${options.noun} do you mean?`,
            candidates: [],
          },
        },
      ];
    },
  };
}

export interface FormatOptions {
  readonly name: string;
  readonly field: string;
  readonly actions?: readonly string[];
  /** What the value is, for the question (e.g. "ID number"). */
  readonly noun: string;
  readonly test: (value: string) => boolean;
}

/** The field must pass `test` (a format, a checksum); a value that does not is asked for again. */
export function formatValidator(options: FormatOptions): DomainValidator {
  return {
    name: options.name,
    check(step) {
      const value = fieldValue(step, options.field, options.actions);
      if (value === undefined || options.test(value)) return [];
      return [
        {
          code: 'invalid_value',
          field: options.field,
          message: `${options.field} is not a valid ${options.noun}`,
          ask: { question: `The ${options.noun} given is not valid. Please give it again.`, candidates: [] },
        },
      ];
    },
  };
}

const ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const ID_CHECK = '10X98765432';

/** A PRC resident ID number: 18 characters, a plausible birth date, and its ISO 7064 check character. */
export function isChineseIdNumber(value: string): boolean {
  const id = value.trim().toUpperCase();
  if (!/^\d{17}[\dX]$/.test(id)) return false;
  const month = Number(id.slice(10, 12));
  const day = Number(id.slice(12, 14));
  if (month < 1 || month > 12 || day < 1 || day > 31) return false;
  const sum = ID_WEIGHTS.reduce((n, w, i) => n + w * Number(id[i]), 0);
  return ID_CHECK[sum % 11] === id[17];
}

/** A bank card number: 12–19 digits (spaces allowed) passing the Luhn check. */
export function isBankCardNumber(value: string): boolean {
  const digits = value.replace(/\s+/g, '');
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** A string value of `field` in a step the validator covers; `undefined` to skip (absent, a reference, not a string). */
function fieldValue(
  step: PlanStep,
  field: string,
  actions: readonly string[] | undefined,
): string | undefined {
  if (actions !== undefined && !actions.includes(step.action)) return undefined;
  const value = valueAt(step.input, field.split('.'));
  if (refText(value) !== undefined || typeof value !== 'string') return undefined;
  return value;
}
