import { canonicalJson } from '../util/canonical-json.js';
import { COMPARED_FIELDS, type ComparedField, type ToolDefinitionSnapshot } from './definition.js';

/** How a tool differs from the approved set. */
export type DriftKind = 'added' | 'removed' | 'changed';

export interface ToolChange {
  readonly name: string;
  readonly kind: DriftKind;
  readonly source: string;
  /** `changed`: the fields that differ (e.g. `description`, `input`). Empty otherwise. */
  readonly fields: readonly ComparedField[];
  readonly approvedVersion: string | null;
  readonly version: string | null;
  /**
   * `changed` under the same version (or with none): the definition changed and nobody said so.
   * Reported louder than a change with a version bump.
   */
  readonly unversioned: boolean;
}

/** A tool source whose definitions could not be read (an MCP server that is down). */
export interface UncheckedSource {
  readonly source: string;
  readonly reason: string;
}

export interface ToolDriftReport {
  /** No change (unchecked sources aside). */
  readonly clean: boolean;
  readonly changes: readonly ToolChange[];
  /** Sources not checked now: their approved tools are neither removed nor unchanged. */
  readonly unchecked: readonly UncheckedSource[];
  /** Definitions compared (in use now). */
  readonly checked: number;
  /** The names of the definitions in use, sorted. */
  readonly names: readonly string[];
}

/**
 * Compares the definitions in use with the approved ones, by tool name: added, removed, and
 * changed (with the fields that differ; `unversioned` when the version was not bumped). The
 * approved tools of an unchecked source are left out. Sorted by name.
 */
export function compareToolDefinitions(
  approved: readonly ToolDefinitionSnapshot[],
  current: readonly ToolDefinitionSnapshot[],
  unchecked: readonly UncheckedSource[] = [],
): ToolDriftReport {
  const skipped = new Set(unchecked.map((u) => u.source));
  const before = new Map(approved.map((d) => [d.name, d]));
  const now = new Map(current.map((d) => [d.name, d]));
  const changes: ToolChange[] = [];
  for (const [name, definition] of now) {
    const was = before.get(name);
    if (was === undefined) {
      changes.push(change(name, 'added', definition.source, [], null, definition.version));
      continue;
    }
    const fields = COMPARED_FIELDS.filter(
      (f) => canonicalJson(was[f] ?? null) !== canonicalJson(definition[f] ?? null),
    );
    if (fields.length === 0) continue;
    changes.push(change(name, 'changed', definition.source, fields, was.version, definition.version));
  }
  for (const [name, was] of before) {
    if (now.has(name) || skipped.has(was.source)) continue;
    changes.push(change(name, 'removed', was.source, [], was.version, null));
  }
  changes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const names = [...now.keys()].sort();
  return { clean: changes.length === 0, changes, unchecked, checked: now.size, names };
}

function change(
  name: string,
  kind: DriftKind,
  source: string,
  fields: readonly ComparedField[],
  approvedVersion: string | null,
  version: string | null,
): ToolChange {
  const unversioned = kind === 'changed' && !fields.includes('version');
  return { name, kind, source, fields, approvedVersion, version, unversioned };
}

/** The report as lines for a person (a terminal, a log). */
export function formatDriftReport(report: ToolDriftReport): string[] {
  const lines: string[] = [];
  const n = report.changes.length;
  lines.push(
    n === 0
      ? `tool definitions: ${report.checked} checked, all as approved`
      : `tool definitions: ${report.checked} checked, ${n} differ from the approved set`,
  );
  for (const c of report.changes) {
    const where = `${c.name} (${c.source})`;
    if (c.kind === 'added') lines.push(`  added      ${where}: not in the approved set`);
    else if (c.kind === 'removed') lines.push(`  removed    ${where}: approved, no longer offered`);
    else if (c.unversioned) {
      lines.push(
        `  CHANGED WITHOUT A VERSION BUMP  ${where}: ${c.fields.join(', ')} (version ${c.version ?? 'none'})`,
      );
    } else {
      lines.push(
        `  changed    ${where}: ${c.fields.join(', ')} (version ${c.approvedVersion ?? 'none'} → ${c.version ?? 'none'})`,
      );
    }
  }
  for (const u of report.unchecked) lines.push(`  not checked: ${u.source}: ${u.reason}`);
  return lines;
}
