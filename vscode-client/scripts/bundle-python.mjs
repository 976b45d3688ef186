// Installs the repo's Python package (..) and its pinned dependencies into bundled/libs, so the
// extension can run `python3 -m agentv_lsp serve` with PYTHONPATH=bundled/libs when no interpreter
// with agentv-lsp is configured. Compiled dependencies (rpds-py, PyYAML's C loader) are built for the
// interpreter that runs this script: AGENTV_BUNDLE_PYTHON (default python3).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const here = resolve(import.meta.dirname, "..");
const repo = resolve(here, "..");
const target = join(here, "bundled", "libs");
const python = process.env.AGENTV_BUNDLE_PYTHON || "python3";

const run = (cmd, args) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
const version = run(python, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"]).trim();
const [maj, min] = version.split(".").map(Number);
if (maj < 3 || (maj === 3 && min < 11)) {
  console.error(`bundle-python: ${python} is Python ${version}; the server needs 3.11+ (set AGENTV_BUNDLE_PYTHON).`);
  process.exit(1);
}
if (!existsSync(join(repo, "pyproject.toml"))) {
  console.error(`bundle-python: no pyproject.toml in ${repo}`);
  process.exit(1);
}
rmSync(target, { recursive: true, force: true });
mkdirSync(target, { recursive: true });
console.log(`bundle-python: installing ${repo} with ${python} (Python ${version}) into ${target}`);
execFileSync(
  python,
  [
    "-m", "pip", "install",
    "--quiet", "--disable-pip-version-check", "--no-input", "--no-compile",
    "--target", target,
    "--constraint", join(here, "bundle-constraints.txt"),
    repo,
  ],
  { stdio: "inherit", env: { ...process.env, PIP_NO_INPUT: "1", PIP_USER: "0" } },
);
// Console scripts carry this machine's interpreter path; caches are rebuilt at run time.
rmSync(join(target, "bin"), { recursive: true, force: true });
const prune = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === "__pycache__") rmSync(p, { recursive: true, force: true });
    else if (statSync(p).isDirectory()) prune(p);
  }
};
prune(target);
if (!existsSync(join(target, "agentv_lsp", "__init__.py"))) {
  console.error("bundle-python: agentv_lsp is missing from bundled/libs");
  process.exit(1);
}
const platform = run(python, ["-c", "import sysconfig; print(sysconfig.get_platform())"]).trim();
writeFileSync(join(target, ".agentv-bundle.json"), JSON.stringify({ python: version, platform }, null, 2) + "\n");
// Smoke test: the bundle imports with a clean path.
run(python, ["-I", "-B", "-c", `import sys; sys.path.insert(0, ${JSON.stringify(target)}); import agentv_lsp, pygls, yaml, jsonschema`]);
console.log(`bundle-python: ok (Python ${version}, ${platform})`);
