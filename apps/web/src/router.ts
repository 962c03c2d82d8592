/** History routing: page paths are served index.html by the server (SPA fallback). */
const listeners = new Set<() => void>();

export function currentPath(): string {
  return location.pathname;
}

export function navigate(path: string): void {
  if (path !== location.pathname) history.pushState(null, '', path);
  for (const listener of listeners) listener();
}

export function onRoute(listener: () => void): void {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
}
