// Records, for case folders already recorded by the golden-v4 driver, the graders and metadata the
// runtime attaches to each loaded test (`EvalTest.assertions`, `EvalTest.metadata`), which the
// driver does not keep: expected/<eval path with / as __>.assertions.json = [[id, assertions, metadata]].
// Staged like the driver (copy, .git/, the copy as cwd and repo root); the copy's path becomes <ROOT>.
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

function scrub(value, root) {
  if (typeof value === 'string') return value.split(root).join('<ROOT>');
  if (Array.isArray(value)) return value.map((v) => scrub(v, root));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, root)]));
  return value;
}

const [casesDir, ...only] = process.argv.slice(2);
const names = only.length ? only : readdirSync(casesDir).filter((d) => statSync(path.join(casesDir, d)).isDirectory()).sort();
const scratch = mkdtempSync(path.join(tmpdir(), 'agentv4-assertions-'));
const cwd = process.cwd();
let n = 0;
for (const name of names) {
  const src = path.resolve(casesDir, name);
  const meta = path.join(src, 'expected', '_case.json');
  if (!existsSync(meta)) continue;
  const spec = existsSync(path.join(src, 'case.json')) ? JSON.parse(readFileSync(path.join(src, 'case.json'), 'utf8')) : {};
  const root = path.join(scratch, String(n++), 'case');
  mkdirSync(path.dirname(root), { recursive: true });
  cpSync(src, root, { recursive: true, filter: (s) => path.basename(s) !== 'expected' });
  if (spec.git_root !== false) mkdirSync(path.join(root, '.git'), { recursive: true });
  process.chdir(root);
  for (const file of JSON.parse(readFileSync(meta, 'utf8')).eval_files) {
    const saved = { warn: console.warn, error: console.error, log: console.log, info: console.info };
    for (const k of Object.keys(saved)) console[k] = () => {};
    let tests = [];
    try {
      tests = await loadTests(path.join(root, file), root, {});
    } catch {
      tests = [];
    } finally {
      Object.assign(console, saved);
    }
    const rows = tests.map((t) => [t.id, t.assertions ?? null, t.metadata ?? null]);
    writeFileSync(
      path.join(src, 'expected', `${file.split('/').join('__')}.assertions.json`),
      `${JSON.stringify(scrub(rows, root), null, 2)}\n`,
    );
  }
  process.chdir(cwd);
}
rmSync(scratch, { recursive: true, force: true });
