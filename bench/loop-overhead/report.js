// @ts-check
import { execFileSync } from 'node:child_process';
/** Statistics and markdown tables for the benchmark's report. */

/** Nearest-rank percentile of an ascending array. @param {number[]} sorted @param {number} p */
export const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
/** @param {number[]} values */
export const summarize = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    min: sorted[0] ?? NaN,
  };
};
/** @param {number} x @param {number} [digits] */
export const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
/** @param {number} x */
export const int = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');

/**
 * A markdown table; columns after the first are right-aligned.
 * @param {string[]} head
 * @param {(string | number)[][]} rows
 */
export function table(head, rows) {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  /** @param {string[]} r */
  const line = (r) =>
    `| ${r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, c) => (c === 0 ? '-'.repeat(w) : `${'-'.repeat(Math.max(1, w - 1))}:`)).join(' | ')} |`;
  return [line(head), rule, ...cells.slice(1).map(line)].join('\n');
}

/**
 * The commit a bench ran on, and whether the core's sources had uncommitted changes then
 * (`undefined` commit: not a git checkout).
 * @param {string} repo
 */
export function gitState(repo) {
  /** @param {string[]} argv */
  const git = (argv) => {
    try {
      return execFileSync('git', argv, {
        cwd: repo,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return undefined;
    }
  };
  return {
    commit: git(['rev-parse', '--short', 'HEAD']),
    dirty: (git(['status', '--porcelain', '--', 'packages/reins/src']) ?? '') !== '',
  };
}
