/**
 * The assistant's one language test: a text with a Chinese character is answered in Chinese,
 * anything else in English (the demo model's replies, the cards' notes, the stop notice).
 */
export const isChinese = (text: string): boolean => /[\u4e00-\u9fff]/.test(text);
