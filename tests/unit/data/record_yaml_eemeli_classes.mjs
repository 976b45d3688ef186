// Records what eemeli/yaml 2.9.1 (AgentV 4.42.4's YAML library, called as `parse(text, {merge: true})`)
// makes of each text in yaml_eemeli_classes.json, in place: `runtime` = {ok, json} (JSON.stringify of
// the value) or {ok: false, error} (the first line of the message). Not run by the tests; the JSON is
// committed, and tests/unit/test_yamlpos_eemeli.py reads it.
//
//   AGENTV4_MODULES=DIR/node_modules node tests/unit/data/record_yaml_eemeli_classes.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
const { parse } = await import(path.join(process.env.AGENTV4_MODULES, 'yaml', 'dist', 'index.js'));
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'yaml_eemeli_classes.json');
const data = JSON.parse(readFileSync(file, 'utf8'));
process.removeAllListeners('warning');
process.on('warning', () => {});
for (const cases of Object.values(data.classes)) {
  for (const c of cases) {
    try {
      const v = parse(c.text, { merge: true });
      c.runtime = { ok: true, json: JSON.stringify(v === undefined ? null : v) ?? null };
    } catch (e) {
      c.runtime = { ok: false, error: String(e.message).split('\n')[0] };
    }
  }
}
writeFileSync(file, JSON.stringify(data, null, 1) + '\n');
