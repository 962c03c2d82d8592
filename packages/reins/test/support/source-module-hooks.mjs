// Module hooks (`module.register`) that let a plain `node` import reins from its TypeScript
// sources, as the tests do: a `./x.js` import from a .ts file resolves to `./x.ts`, and .ts
// files are transpiled by TypeScript (imports kept as written: verbatimModuleSyntax). Every
// resolved URL is posted to the port passed at registration, so a test sees what was loaded.
import { readFile } from 'node:fs/promises';
import ts from 'typescript';

/** @type {import('node:worker_threads').MessagePort | undefined} */
let port;

/** @param {{ port: import('node:worker_threads').MessagePort }} data */
export function initialize(data) {
  port = data.port;
}

/**
 * @param {string} specifier
 * @param {{ parentURL?: string }} context
 * @param {(specifier: string, context: unknown) => Promise<{ url: string }>} next
 */
export async function resolve(specifier, context, next) {
  const fromSource =
    context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js');
  const resolved = await next(fromSource ? `${specifier.slice(0, -3)}.ts` : specifier, context);
  port?.postMessage(resolved.url);
  return resolved;
}

/**
 * @param {string} url
 * @param {unknown} context
 * @param {(url: string, context: unknown) => Promise<unknown>} next
 */
export async function load(url, context, next) {
  if (!url.endsWith('.ts')) return next(url, context);
  const { outputText } = ts.transpileModule(await readFile(new URL(url), 'utf8'), {
    fileName: url,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
