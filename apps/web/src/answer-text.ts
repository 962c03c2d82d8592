/** The demo model's notice at the start of its text (DOM-free, for Node tests). */
const DEMO_NOTICE = /^\s*(?:【演示模式[^】]*】|\[Demo mode[^\]]*\])\s*/u;

export function withoutDemoNotice(text: string): string {
  return text.replace(DEMO_NOTICE, '');
}
