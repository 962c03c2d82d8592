import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { expect } from 'vitest';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
export const SERVER_FIXTURE = fileURLToPath(new URL('../fixtures/tool-server.mjs', import.meta.url));

/**
 * The fixture process runs compiled code while tests run the sources: rebuild first
 * (incremental, quick when nothing changed) so a stale dist/ cannot hide a bug.
 */
export function buildMcp(): void {
  execFileSync(
    process.execPath,
    [`${repoRoot}node_modules/typescript/bin/tsc`, '-b', `${repoRoot}packages/mcp/tsconfig.build.json`],
    { cwd: repoRoot, stdio: 'inherit' },
  );
}

/** Starts the fixture over HTTP and resolves with its MCP URL (it prints it on stdout). */
export async function startHttpFixture(
  env: Record<string, string>,
): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [SERVER_FIXTURE, 'http'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  return { url: line.toString().trim(), child };
}

export async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

export type Negotiation = 'auto' | 'legacy';

/** A plain SDK client: to send what our client bridge would refuse before sending. */
export async function rawClient(
  target: { kind: 'stdio'; env: Record<string, string> } | { kind: 'http'; url: string; token?: string },
  mode: Negotiation,
): Promise<Client> {
  const client = new Client({ name: 'raw-test-client', version: '0.0.0' }, { versionNegotiation: { mode } });
  const transport =
    target.kind === 'stdio'
      ? new StdioClientTransport({
          command: process.execPath,
          args: [SERVER_FIXTURE, 'stdio'],
          env: { ...(process.env as Record<string, string>), ...target.env },
          stderr: 'inherit',
        })
      : new StreamableHTTPClientTransport(new URL(target.url), {
          requestInit: {
            headers: target.token === undefined ? {} : { authorization: `Bearer ${target.token}` },
          },
        });
  await client.connect(transport);
  return client;
}

/** The `{code, message}` of a failed call. */
export function toolError(result: Awaited<ReturnType<Client['callTool']>>): {
  code: string;
  message: string;
} {
  expect(result.isError).toBe(true);
  const content = result.content as { type: string; text?: string }[];
  return (JSON.parse(content[0]?.text ?? 'null') as { error: { code: string; message: string } }).error;
}
