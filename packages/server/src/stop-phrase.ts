/**
 * What a user types to mean "stop what you are doing". Compared after trimming, lower-casing
 * and dropping trailing punctuation (ASCII and CJK), so "Stop!", " cancel。" and "算了！" match
 * but "stop the oven timer" does not: only the whole message counts.
 */
export const DEFAULT_STOP_PHRASES: readonly string[] = Object.freeze([
  'cancel',
  'stop',
  'nevermind',
  'never mind',
  'abort',
  '算了',
  '不用了',
  '取消',
  '停',
  '停止',
]);

const TRAILING_PUNCTUATION = /[\s.!?,;:~…。！？，；：、]+$/u;

export function normalizeStopInput(input: string): string {
  return input.trim().toLowerCase().replace(TRAILING_PUNCTUATION, '');
}

export function stopPhraseMatcher(
  phrases: readonly string[] = DEFAULT_STOP_PHRASES,
): (input: string) => boolean {
  const set = new Set(phrases.map(normalizeStopInput));
  return (input) => input.length <= 64 && set.has(normalizeStopInput(input));
}
