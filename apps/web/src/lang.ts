/** The page's languages (its own file, DOM-free, so Node tests can import the texts that use it). */
export type Lang = 'zh' | 'en';
