import type { Lang } from './lang.js';

/**
 * What the family reads for an error code from the kitchen API or the Reins server, in the
 * page's language only (issue 19): the server's own message is English and for developers (the
 * playground still shows it). An unknown code gets a general sentence with the code, never the
 * server's text. DOM-free, so Node tests can check every code has both languages.
 */
const MESSAGES: Record<string, Record<Lang, string>> = {
  INVALID_PARAMETER: {
    zh: '填写的内容不对，请检查后再试。',
    en: 'Something in the form is not right. Check it and try again.',
  },
  UNAUTHENTICATED: {
    zh: '用户名或密码不对，或登录已过期。',
    en: 'Wrong username or password, or your sign-in has expired.',
  },
  PERMISSION_DENIED: { zh: '你没有权限做这件事。', en: 'You are not allowed to do that.' },
  NOT_FOUND: {
    zh: '找不到了：可能已被家人删除。',
    en: 'Not found: someone in the family may have removed it.',
  },
  CONFLICT: {
    zh: '数量不够，或与现有内容冲突。',
    en: 'Not enough left, or it clashes with what is already there.',
  },
  PRECONDITION_FAILED: {
    zh: '家人刚改过这一项，请看看最新内容再试。',
    en: 'Someone in the family just changed this. Look at the latest version and try again.',
  },
  RATE_LIMITED: { zh: '操作太频繁，请稍后再试。', en: 'Too many tries. Please wait a moment and try again.' },
  SERVICE_UNAVAILABLE: {
    zh: '服务暂时不可用，请稍后再试。',
    en: 'The service is unavailable right now. Try again shortly.',
  },
  SERVER_DRAINING: { zh: '服务正在重启，请稍后再试。', en: 'The service is restarting. Try again shortly.' },
  EXPIRED: { zh: '已过期。', en: 'This has expired.' },
  QUOTA_EXCEEDED: {
    zh: '今天的提问额度用完了，明天再来吧。',
    en: 'Today’s question allowance is used up. Try again tomorrow.',
  },
  LIMIT_EXCEEDED: { zh: '超出了上限。', en: 'That is over the limit.' },
  TOO_MANY_RUNS: {
    zh: '已经有几个问题在回答中，请等它们结束。',
    en: 'A few questions are still being answered. Wait for them to finish.',
  },
  TIMEOUT: {
    zh: '等待太久，已停止。请再试一次。',
    en: 'That took too long and was stopped. Please try again.',
  },
  CANCELLED: { zh: '已停止。', en: 'Stopped.' },
  PAYLOAD_TOO_LARGE: { zh: '内容太长了。', en: 'That is too long.' },
  IDEMPOTENCY_KEY_REUSED: {
    zh: '这次提交和上次不一致，请刷新后再试。',
    en: 'This does not match the earlier submission. Reload and try again.',
  },
  MODEL_FAILED: {
    zh: '助手暂时答不上来，请再试一次。',
    en: 'The assistant could not answer just now. Please try again.',
  },
  OUTCOME_UNKNOWN: {
    zh: '不确定这一步是否完成，请检查后再试。',
    en: 'It is not certain this step finished. Check before trying again.',
  },
  INTERNAL: { zh: '出了点问题，请稍后再试。', en: 'Something went wrong. Please try again later.' },
};

/** Every code with a message of its own (the tests check each has both languages). */
export const KNOWN_ERROR_CODES: readonly string[] = Object.keys(MESSAGES);

export function errorText(code: string, lang: Lang): string {
  const known = MESSAGES[code];
  if (known !== undefined) return known[lang];
  return lang === 'zh'
    ? `出了点问题（${code}），请稍后再试。`
    : `Something went wrong (${code}). Please try again later.`;
}
