// Prints vitest's JSON report as the plain closing line CI reads: "tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.ci/vitest-report.json';
let report;
try {
  report = JSON.parse(readFileSync(path, 'utf8'));
} catch {
  console.log('tests: 0 passed, 1 failed');
  console.error(`no test report at ${path}`);
  process.exit(1);
}
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${skipped} skipped`);
process.exitCode = report.numFailedTests === 0 && report.numPassedTests > 0 ? 0 : 1;
