// Companion of golden-v4/driver.mjs (run it after the driver, which recreates expected/): records the
// grader configs the published runtime builds for each loaded test, which the driver does not record.
// Writes expected/<eval path with / replaced by __>.assertions.json = {test id: [{type, name, value}]},
// one list per loaded test in load order (a repeated id gets one list per occurrence).
//   AGENTV4_MODULES=<node_modules> node record_assertions.mjs CASES_DIR [CASE...]
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const modules = process.env.AGENTV4_MODULES;
if (!modules || !existsSync(path.join(modules, '@agentv', 'core'))) {
  console.error('set AGENTV4_MODULES to the node_modules folder holding @agentv/core@4.42.4');
  process.exit(2);
}
const { loadTests } = await import(path.join(modules, '@agentv', 'core', 'dist', 'index.js'));

const [casesDir, ...only] = process.argv.slice(2);
const names = only.length ? only : readdirSync(casesDir).filter((d) => statSync(path.join(casesDir, d)).isDirectory()).sort();
const scratch = mkdtempSync(path.join(tmpdir(), 'agentv4-asserts-'));
const quiet = { warn: console.warn, error: console.error, log: console.log };
for (const [n, name] of names.entries()) {
  const src = path.resolve(casesDir, name);
  const meta = JSON.parse(readFileSync(path.join(src, 'expected', '_case.json'), 'utf8'));
  const root = path.join(scratch, String(n), 'case');
  cpSync(src, root, { recursive: true, filter: (s) => path.basename(s) !== 'expected' });
  mkdirSync(path.join(root, '.git'), { recursive: true });
  const cwd = process.cwd();
  process.chdir(root);
  try {
    for (const file of meta.eval_files) {
      Object.assign(console, { warn() {}, error() {}, log() {} });
      let tests = [];
      try {
        tests = await loadTests(path.join(root, file), root, {});
      } finally {
        Object.assign(console, quiet);
      }
      const out = {};
      for (const t of tests) {
        (out[t.id] ??= []).push((t.assertions ?? []).map((a) => ({ type: a.type, name: a.name, value: a.value ?? null })));
      }
      writeFileSync(path.join(src, 'expected', `${file.split('/').join('__')}.assertions.json`), `${JSON.stringify(out, null, 2)}\n`);
    }
  } finally {
    process.chdir(cwd);
  }
}
rmSync(scratch, { recursive: true, force: true });
