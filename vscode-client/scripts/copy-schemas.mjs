// Copies ../schema/*.json into schema/ (packaged with the extension: the published schemas, for a
// `# yaml-language-server: $schema=` modeline; the extension contributes no yamlValidation association
// since its server reports what they describe) and checks that any schema a yamlValidation entry
// points to exists.
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const here = resolve(import.meta.dirname, "..");
const src = resolve(here, "..", "schema");
const dest = join(here, "schema");
rmSync(dest, { recursive: true, force: true });
mkdirSync(dest, { recursive: true });
const files = existsSync(src) ? readdirSync(src).filter((f) => f.endsWith(".json")) : [];
for (const f of files) copyFileSync(join(src, f), join(dest, f));
console.log(`copy-schemas: ${files.length} schema(s): ${files.join(", ") || "none"}`);
const pkg = JSON.parse(readFileSync(join(here, "package.json"), "utf8"));
const missing = (pkg.contributes?.yamlValidation ?? [])
  .map((v) => v.url)
  .filter((u) => u.startsWith("./") && !existsSync(join(here, u)));
if (missing.length > 0) {
  console.error(`copy-schemas: yamlValidation points to missing file(s): ${missing.join(", ")} (not in ${src})`);
  process.exit(1);
}
