/** The texts `loginErrorText` uses (from `t()`; a structural type keeps this file DOM-free for Node tests). */
export interface SignInTexts {
  readonly signInFailed: string;
  readonly signInLocked: (minutes: number) => string;
  readonly signInBusy: string;
  readonly errorText: (code: string) => string;
}

/**
 * What the sign-in form says about a failed sign-in (an `ApiError`): a lockout (429
 * `RATE_LIMITED`) in whole minutes from `Retry-After`, a busy server (503) as "try again in a
 * moment", anything else by its code in the page's language (the server's message is English).
 */
export function loginErrorText(
  error: {
    readonly code: string;
    readonly message: string;
    readonly status: number;
    readonly retryAfter?: number;
  },
  texts: SignInTexts,
): string {
  if (error.code === 'RATE_LIMITED')
    return texts.signInLocked(Math.max(1, Math.ceil((error.retryAfter ?? 60) / 60)));
  if (error.status === 503) return texts.signInBusy;
  return `${texts.signInFailed}: ${texts.errorText(error.code)}`;
}
