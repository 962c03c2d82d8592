import { fileURLToPath } from 'node:url';

/** The folder of the built pages (`vite build` output), for `createKitchenApp({ web: { root } })`. */
export const webDistDir = fileURLToPath(new URL('./dist', import.meta.url));
