// Summarizes a `conformance server -o DIR` run: one row per scenario (from
// DIR/server-<scenario>-<timestamp>/checks.json) judged as the suite judges
// it with a baseline (a FAILURE or WARNING check fails the scenario), then
// a closing line `conformance: N passed, N failed, N skipped`, where
// skipped = failed as the baseline expects, and failed counts unexpected
// failures and stale baseline entries alike.
//
// With a requirements file (the suite's requirements/REVISION.yaml), the
// scenarios it lists under `not_scored` are shown as such and counted apart:
// the suite runs them for visibility only.
//
// Usage: node summarize.mjs RESULTS_DIR [BASELINE.yml [REQUIREMENTS.yaml]]
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const [dir, baselineFile, requirementsFile] = process.argv.slice(2);
const expected = new Set(
  baselineFile ? (parse(readFileSync(baselineFile, 'utf8'))?.server ?? []) : []
);
const notScored = new Set(
  requirementsFile
    ? (parse(readFileSync(requirementsFile, 'utf8'))?.not_scored ?? [])
        .filter((e) => e.leg === 'server')
        .map((e) => e.scenario)
    : []
);
const rows = [];
for (const entry of readdirSync(dir, { withFileTypes: true })) {
  const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name);
  if (!entry.isDirectory() || !m) continue;
  const checks = JSON.parse(readFileSync(join(dir, entry.name, 'checks.json'), 'utf8'));
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const ok = checks.filter((c) => c.status === 'SUCCESS').length;
  const failed = bad.length > 0;
  const listed = expected.has(m[1]);
  const verdict = notScored.has(m[1])
    ? failed ? 'not scored (fails)' : 'not scored (passes)'
    : failed
      ? listed ? 'expected failure' : 'FAIL'
      : listed ? 'STALE (passes; remove from baseline)' : 'pass';
  const why = bad.map((c) => `${c.id}: ${c.errorMessage ?? c.status}`).join('; ');
  rows.push({ scenario: m[1], verdict, checks: `${ok}/${ok + bad.length}`, why });
}
const width = Math.max(...rows.map((r) => r.scenario.length), 8);
console.log(`\n${'scenario'.padEnd(width)}  checks  result`);
for (const r of rows) {
  console.log(`${r.scenario.padEnd(width)}  ${r.checks.padEnd(6)}  ${r.verdict}${r.why && r.verdict !== 'expected failure' ? `  (${r.why})` : ''}`);
}
const count = (v) => rows.filter((r) => r.verdict.startsWith(v)).length;
const unscored = notScored.size
  ? `; not scored: ${count('not scored (passes)')} pass, ${count('not scored (fails)')} fail`
  : '';
console.log(
  `conformance: ${count('pass')} passed, ${count('FAIL') + count('STALE')} failed, ${count('expected')} skipped${unscored}`
);
