/** The folder of the built pages (`vite build` output), for `createKitchenApp({ web: { root } })`. */
export declare const webDistDir: string;
