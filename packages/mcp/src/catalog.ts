import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { ToolError, type AnyTool } from 'reins';
import { definitionSnapshot, type ToolDefinitionSnapshot } from 'reins/node';
import { fingerprint } from './fingerprint.js';
import { importTool, reinsName, type CallTool, type ImportOptions, type ToolEntry } from './import-tool.js';
import { untrustedText } from './untrusted-text.js';

/** A tool definition that needs an operator's approval before it can be called. */
export interface PendingApproval {
  readonly name: string;
  readonly reinsName: string;
  /** `new`: not in the approved set; `changed`: its definition differs from the approved one. */
  readonly kind: 'new' | 'changed';
  readonly fingerprint: string;
  readonly approvedFingerprint?: string;
  /** Cleaned and capped: for the operator's eyes, still untrusted. */
  readonly description: string;
}

export interface SkippedTool {
  readonly name: string;
  readonly reason: string;
}

interface Listed {
  readonly definition: McpTool;
  readonly fingerprint: string;
}

/**
 * The tool definitions a server has shown, and which of them an operator trusts.
 *
 * Contract: the first listing is approved as it is (trust on first use) unless approved
 * fingerprints were given; afterwards a definition is callable only while its fingerprint
 * equals the approved one. A changed definition is refused (`PERMISSION_DENIED`) and a new
 * tool is not offered until `approve(name)`; a tool gone from the listing is `NOT_FOUND`.
 * Imported tools are built once per (name, fingerprint).
 */
export class ToolCatalog {
  readonly #options: ImportOptions;
  readonly #call: CallTool;
  readonly #approved = new Map<string, string>();
  #live = new Map<string, Listed>();
  #listed: boolean;
  readonly #imported = new Map<string, { fingerprint: string; tool?: AnyTool; reason?: string }>();
  readonly #now: () => number;
  /** When each definition (by fingerprint) was first listed: its `lastUpdated`. */
  readonly #firstSeen = new Map<string, string>();
  #serverVersion: string | undefined;

  constructor(
    options: ImportOptions,
    call: CallTool,
    pinned?: Readonly<Record<string, string>>,
    now: () => number = Date.now,
  ) {
    this.#options = options;
    this.#call = call;
    this.#now = now;
    for (const [name, print] of Object.entries(pinned ?? {})) this.#approved.set(name, print);
    this.#listed = pinned !== undefined;
  }

  /** Records a `tools/list` answer (and the server's version). Returns whether anything changed. */
  applyListing(definitions: readonly McpTool[], serverVersion?: string): boolean {
    const before = [...this.#live.values()].map((t) => `${t.definition.name}=${t.fingerprint}`).join();
    this.#live = new Map(definitions.map((d) => [d.name, { definition: d, fingerprint: fingerprint(d) }]));
    if (serverVersion !== undefined) this.#serverVersion = serverVersion;
    const seenAt = new Date(this.#now()).toISOString();
    for (const { fingerprint: print } of this.#live.values()) {
      if (!this.#firstSeen.has(print)) this.#firstSeen.set(print, seenAt);
    }
    if (!this.#listed) {
      for (const [name, { fingerprint: print }] of this.#live) this.#approved.set(name, print);
      this.#listed = true;
    }
    return before !== [...this.#live.values()].map((t) => `${t.definition.name}=${t.fingerprint}`).join();
  }

  /** Throws the typed refusal when `entry` may not be called now. */
  assertCallable(entry: ToolEntry): void {
    const approved = this.#approved.get(entry.mcpName);
    const live = this.#live.get(entry.mcpName);
    const where = `${this.#options.server}/${entry.mcpName}`;
    const details = { server: this.#options.server, tool: entry.mcpName };
    if (live === undefined) {
      throw new ToolError('NOT_FOUND', `${where} is no longer offered by the server`, details);
    }
    if (approved !== live.fingerprint) {
      const message = `${where} changed its definition since it was approved; refused until an operator approves the change`;
      throw new ToolError('PERMISSION_DENIED', message, { ...details, fingerprint: live.fingerprint });
    }
    if (entry.fingerprint !== approved) {
      const message = `${where} was re-approved with a new definition; this copy of the tool is stale — take it from tools() again`;
      throw new ToolError('PERMISSION_DENIED', message, details);
    }
  }

  /** The tools that can be called now: approved and unchanged. */
  tools(): AnyTool[] {
    const tools: AnyTool[] = [];
    for (const [name, listed] of this.#live) {
      if (this.#approved.get(name) !== listed.fingerprint) continue;
      const tool = this.#import(listed);
      if (tool !== undefined) tools.push(tool);
    }
    return tools;
  }

  get callableCount(): number {
    return this.tools().length;
  }

  pending(): PendingApproval[] {
    const pending: PendingApproval[] = [];
    for (const [name, { definition, fingerprint: print }] of this.#live) {
      const approved = this.#approved.get(name);
      if (approved === print) continue;
      pending.push({
        name,
        reinsName: reinsName(this.#options.prefix, name),
        kind: approved === undefined ? 'new' : 'changed',
        fingerprint: print,
        ...(approved === undefined ? {} : { approvedFingerprint: approved }),
        description: untrustedText(definition.description ?? '', this.#options.maxDescriptionLength),
      });
    }
    return pending;
  }

  /**
   * Approves the definition the server shows now for `name` (an MCP tool name). When
   * `expectedFingerprint` is given, approves only that exact definition — so an operator who
   * reviewed one version does not approve another that arrived meanwhile.
   */
  approve(name: string, expectedFingerprint?: string): void {
    const live = this.#live.get(name);
    if (live === undefined) throw new TypeError(`no tool ${JSON.stringify(name)} is listed by the server`);
    if (expectedFingerprint !== undefined && expectedFingerprint !== live.fingerprint) {
      throw new TypeError(`the definition of ${name} is ${live.fingerprint}, not ${expectedFingerprint}`);
    }
    this.#approved.set(name, live.fingerprint);
  }

  /**
   * Every listed definition (approved or not) as a drift snapshot: the definition as the server
   * sent it (before sanitizing), named as imported; version from the tool's `_meta.version`,
   * else the server's; `lastUpdated`: when this definition was first listed here.
   */
  definitions(): ToolDefinitionSnapshot[] {
    return [...this.#live.values()].map(({ definition: d, fingerprint: print }) => {
      const readOnly = d.annotations?.readOnlyHint === true;
      return definitionSnapshot({
        name: reinsName(this.#options.prefix, d.name),
        source: `mcp:${this.#options.server}`,
        version: this.#versionOf(d) ?? null,
        lastUpdated: this.#firstSeen.get(print) ?? null,
        description: d.description ?? d.title ?? '', // what the model reads (import-tool.ts)
        input: d.inputSchema,
        output: d.outputSchema ?? null,
        readOnly,
        needsApproval: !readOnly,
        idempotent: d.annotations?.idempotentHint === true,
        annotations: d.annotations ?? null,
      });
    });
  }

  /** A tool's own `_meta.version` when it gives one, else the server's version. */
  #versionOf(definition: McpTool): string | undefined {
    const own = (definition._meta as Record<string, unknown> | undefined)?.['version'];
    return typeof own === 'string' && own !== '' ? own : this.#serverVersion;
  }

  fingerprints(): Record<string, string> {
    return Object.fromEntries(this.#approved);
  }

  skipped(): SkippedTool[] {
    const skipped: SkippedTool[] = [];
    for (const [name, listed] of this.#live) {
      const imported = this.#imported.get(name);
      if (imported?.fingerprint !== listed.fingerprint) continue;
      const reason = imported.reason ?? this.#clashReason(imported.tool, name);
      if (reason !== undefined) skipped.push({ name, reason });
    }
    return skipped;
  }

  #import(listed: Listed): AnyTool | undefined {
    const name = listed.definition.name;
    const known = this.#imported.get(name);
    if (known?.fingerprint === listed.fingerprint) return this.#unlessClashing(known.tool, name);
    const version = this.#versionOf(listed.definition);
    const lastUpdated = this.#firstSeen.get(listed.fingerprint);
    const meta = {
      ...(version === undefined ? {} : { version }),
      ...(lastUpdated === undefined ? {} : { lastUpdated }),
    };
    const result = importTool(listed.definition, listed.fingerprint, this.#options, this.#call, meta);
    const record = result.ok
      ? { fingerprint: listed.fingerprint, tool: result.tool }
      : { fingerprint: listed.fingerprint, reason: result.reason };
    this.#imported.set(name, record);
    return this.#unlessClashing(record.tool, name);
  }

  /**
   * An imported tool, unless another listed tool has its Reins name (then neither is offered).
   * Judged on the listing of now, not kept with the import: once the other tool is gone, this
   * one is offered again.
   */
  #unlessClashing(tool: AnyTool | undefined, mcpName: string): AnyTool | undefined {
    return this.#clashReason(tool, mcpName) === undefined ? tool : undefined;
  }

  #clashReason(tool: AnyTool | undefined, mcpName: string): string | undefined {
    if (tool === undefined) return undefined;
    for (const other of this.#live.keys()) {
      if (other !== mcpName && reinsName(this.#options.prefix, other) === tool.name)
        return `name ${tool.name} clashes with another tool`;
    }
    return undefined;
  }
}
