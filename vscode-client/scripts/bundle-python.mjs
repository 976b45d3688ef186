// Installs the repo's Python package (..) and its pinned dependencies (bundle-constraints.txt) into
// bundled/libs for every CPython minor version the extension supports, so the extension can run
// `python3.X -m agentv_lsp serve` with PYTHONPATH=bundled/libs/common<sep>bundled/libs/cp3X.
//
//   bundled/libs/common/   pure-Python distributions (agentv_lsp, pygls, jsonschema, ...), shared
//   bundled/libs/cp311/    compiled distributions (rpds-py, PyYAML: its C loader lives inside the
//   bundled/libs/cp312/    `yaml` package, so the whole package goes here) built for that minor
//   ...
//   bundled/libs/.agentv-bundle.json   the manifest src/common/bundle.ts reads
//
// Wheels are chosen by pip for each target (`--python-version 3.X --implementation cp
// --platform <this machine's tags> --only-binary=:all:`), so no interpreter of that minor is
// needed to build; the ones found (python3.X on PATH or in ~/.pyenv/versions) import the result.
// The build platform is the only platform: a .vsix built on Linux x86-64 runs there only.
//
// Environment: AGENTV_BUNDLE_PYTHON  interpreter that runs pip (default python3)
//              AGENTV_BUNDLE_MINORS  required minors (default 3.11,3.12,3.13)
//              AGENTV_BUNDLE_OPTIONAL  minors included when wheels exist (default 3.14)
//              AGENTV_BUNDLE_OUT     where to write (default bundled/libs; tests build elsewhere)
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";

const here = resolve(import.meta.dirname, "..");
const repo = resolve(here, "..");
const libs = process.env.AGENTV_BUNDLE_OUT ? resolve(process.env.AGENTV_BUNDLE_OUT) : join(here, "bundled", "libs");
const constraints = join(here, "bundle-constraints.txt");
const python = process.env.AGENTV_BUNDLE_PYTHON || "python3";
const minorsOf = (s) => s.split(",").map((m) => m.trim()).filter(Boolean);
const required = minorsOf(process.env.AGENTV_BUNDLE_MINORS ?? "3.11,3.12,3.13");
const optional = minorsOf(process.env.AGENTV_BUNDLE_OPTIONAL ?? "3.14").filter((m) => !required.includes(m));
const pipEnv = { ...process.env, PIP_NO_INPUT: "1", PIP_USER: "0", PIP_DISABLE_PIP_VERSION_CHECK: "1" };

const fail = (msg) => {
  console.error(`bundle-python: ${msg}`);
  process.exit(1);
};
const run = (cmd, args) => execFileSync(cmd, args, { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", env: pipEnv });

for (const m of [...required, ...optional]) {
  if (!/^3\.(1[1-9]|[2-9]\d)$/.test(m)) fail(`"${m}" is not a CPython minor version the server supports (3.11 or newer)`);
}
if (!existsSync(join(repo, "pyproject.toml"))) fail(`no pyproject.toml in ${repo}`);

// This machine's binary-wheel platforms, most specific first. Plain `linux_*` wheels (built
// locally, found through find-links) would only run on this machine: manylinux ones only.
const platforms = JSON.parse(
  run(python, [
    "-c",
    "import json\ntry:\n from pip._vendor.packaging.tags import platform_tags\nexcept ImportError:\n from packaging.tags import platform_tags\nprint(json.dumps(list(platform_tags())))",
  ]),
).filter((t) => !/^linux_/.test(t));
if (platforms.length === 0) fail(`${python} reports no binary-wheel platform tags`);

const work = mkdtempSync(join(tmpdir(), "agentv-bundle-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

// 1. The server itself, as a wheel (pure Python).
console.log(`bundle-python: building the agentv-lsp wheel from ${repo}`);
execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", join(work, "wheel"), repo], {
  stdio: "inherit",
  env: pipEnv,
});
const serverWheel = readdirSync(join(work, "wheel")).find((f) => /^agentv_lsp-.*\.whl$/.test(f));
if (!serverWheel) fail("pip wheel produced no agentv_lsp wheel");

// 2. Everything, once per minor version.
const installed = {}; // minor -> directory
const skipped = {}; // optional minor -> why
for (const minor of [...required, ...optional]) {
  const dir = join(work, `cp${minor.replace(".", "")}`);
  console.log(`bundle-python: installing for CPython ${minor} (${platforms[0]} ... ${platforms[platforms.length - 1]})`);
  const r = spawnSync(
    python,
    [
      "-m", "pip", "install",
      "--quiet", "--no-input", "--no-compile",
      "--target", dir,
      "--only-binary=:all:",
      "--python-version", minor,
      "--implementation", "cp",
      ...platforms.flatMap((p) => ["--platform", p]),
      "--constraint", constraints,
      join(work, "wheel", serverWheel),
    ],
    { encoding: "utf8", env: pipEnv, stdio: ["ignore", "inherit", "pipe"] },
  );
  if (r.status !== 0) {
    const why = (r.stderr || "").trim().split("\n").filter((l) => /ERROR/.test(l)).join(" ") || `pip exited with ${r.status}`;
    if (required.includes(minor)) {
      process.stderr.write(r.stderr || "");
      fail(`no complete set of wheels for CPython ${minor}: ${why}`);
    }
    skipped[minor] = why;
    console.log(`bundle-python: CPython ${minor} left out (optional): ${why}`);
    continue;
  }
  installed[minor] = dir;
}

// 3. Split each install into pure-Python distributions (-> common, shared) and compiled ones.
const readDists = (dir) => {
  const dists = [];
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".dist-info")) continue;
    const info = join(dir, name);
    const meta = readFileSync(join(info, "METADATA"), "utf8");
    const field = (k) => (meta.match(new RegExp(`^${k}: (.*)$`, "m")) ?? [])[1]?.trim();
    const wheel = readFileSync(join(info, "WHEEL"), "utf8");
    const tags = [...wheel.matchAll(/^Tag: (.*)$/gm)].map((m) => m[1].trim());
    const top = new Set([name]);
    for (const line of readFileSync(join(info, "RECORD"), "utf8").split("\n")) {
      const file = line.split(",")[0];
      if (!file || file.startsWith("..") || file.startsWith("/")) continue;
      const first = file.split("/")[0];
      if (first !== "bin") top.add(first);
    }
    dists.push({ name: field("Name"), version: field("Version"), tags, pure: tags.every((t) => t.endsWith("-none-any")), top: [...top] });
  }
  return dists;
};

const staging = join(work, "libs");
mkdirSync(join(staging, "common"), { recursive: true });
const pure = new Map(); // name -> version
const compiled = {}; // minor -> [{name, version, tags}]
const pythons = {};
for (const [minor, dir] of Object.entries(installed)) {
  const tag = `cp${minor.replace(".", "")}`;
  const dists = readDists(dir);
  const pureTop = new Set(dists.filter((d) => d.pure).flatMap((d) => d.top));
  for (const d of dists.filter((d) => !d.pure)) {
    const shared = d.top.filter((t) => pureTop.has(t));
    if (shared.length) fail(`${d.name} (compiled) shares ${shared.join(", ")} with a pure-Python distribution`);
  }
  for (const d of dists) {
    if (d.pure) {
      const seen = pure.get(d.name);
      if (seen && seen !== d.version) fail(`${d.name}: ${seen} for one minor and ${d.version} for ${minor}; pin it in bundle-constraints.txt`);
      if (!seen) {
        pure.set(d.name, d.version);
        for (const t of d.top) if (existsSync(join(dir, t))) cpSync(join(dir, t), join(staging, "common", t), { recursive: true });
      }
    } else {
      for (const t of d.top) if (existsSync(join(dir, t))) cpSync(join(dir, t), join(staging, tag, t), { recursive: true });
      (compiled[minor] ??= []).push({ name: d.name, version: d.version, tags: d.tags });
    }
  }
  pythons[minor] = tag;
}

// Console scripts carry this machine's paths; caches are rebuilt at run time.
const prune = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === "__pycache__") rmSync(p, { recursive: true, force: true });
    else if (statSync(p).isDirectory()) prune(p);
  }
};
prune(staging);

// PyYAML's Linux wheels ship libyaml with its debug information (2.7 MB of 3 MB): drop it. Code and
// symbols stay; the import test below runs on the result. AGENTV_BUNDLE_STRIP=0 keeps the wheels as is.
let stripped = false;
if (process.platform === "linux" && process.env.AGENTV_BUNDLE_STRIP !== "0" && spawnSync("strip", ["--version"]).status === 0) {
  const objects = Object.values(pythons).flatMap((tag) => {
    const found = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (name.endsWith(".so")) found.push(p);
      }
    };
    walk(join(staging, tag));
    return found;
  });
  if (objects.length) execFileSync("strip", ["--strip-debug", ...objects], { stdio: "inherit" });
  stripped = true;
}
if (!existsSync(join(staging, "common", "agentv_lsp", "__init__.py"))) fail("agentv_lsp is missing from the common part");

// 4. Import the result with every interpreter of a bundled minor this machine has.
const findInterpreter = (minor) => {
  const candidates = [`python${minor}`];
  const pyenv = join(process.env.PYENV_ROOT || join(homedir(), ".pyenv"), "versions");
  if (existsSync(pyenv)) {
    for (const v of readdirSync(pyenv).filter((v) => v.startsWith(`${minor}.`)).sort().reverse()) {
      candidates.push(join(pyenv, v, "bin", `python${minor}`));
    }
  }
  for (const c of candidates) {
    const r = spawnSync(c, ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"], { encoding: "utf8", timeout: 20_000 });
    if (r.status === 0 && r.stdout.trim() === minor) return c;
  }
  return undefined;
};
const verified = [];
for (const [minor, tag] of Object.entries(pythons)) {
  const interpreter = findInterpreter(minor);
  if (!interpreter) {
    console.log(`bundle-python: CPython ${minor}: no interpreter on this machine, not import-tested`);
    continue;
  }
  const path = JSON.stringify([join(staging, "common"), join(staging, tag)]);
  const code = `import sys; sys.path[:0] = ${path}; import agentv_lsp, pygls, jsonschema, rpds, yaml; yaml.CSafeLoader; from agentv_lsp.yamlpos import parse_yaml; assert parse_yaml('a: 1').value == {'a': 1}`;
  const r = spawnSync(interpreter, ["-I", "-B", "-c", code], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) fail(`CPython ${minor} (${interpreter}) cannot import the bundle:\n${r.stderr}`);
  console.log(`bundle-python: CPython ${minor}: imports with ${interpreter}`);
  verified.push(minor);
}

const serverVersion = pure.get("agentv-lsp");
const manifest = {
  format: 2,
  server: serverVersion,
  common: "common",
  // minor -> directory with its compiled distributions (PYTHONPATH = common + this)
  pythons,
  // what VS Code reports as process.platform / process.arch where this bundle runs
  node: { platform: process.platform, arch: process.arch },
  wheelPlatforms: [...new Set(Object.values(compiled).flatMap((ds) => ds.flatMap((d) => d.tags.map((t) => t.split("-")[2]))))].sort(),
  pure: Object.fromEntries([...pure].sort()),
  compiled: Object.fromEntries(Object.entries(compiled).map(([m, ds]) => [m, Object.fromEntries(ds.map((d) => [d.name, d.version]))])),
  verified,
  skipped,
  strippedDebugInfo: stripped,
};
writeFileSync(join(staging, ".agentv-bundle.json"), JSON.stringify(manifest, null, 2) + "\n");

rmSync(libs, { recursive: true, force: true });
mkdirSync(dirname(libs), { recursive: true });
try {
  renameSync(staging, libs);
} catch {
  cpSync(staging, libs, { recursive: true }); // another filesystem
}

const size = (p) => (statSync(p).isDirectory() ? readdirSync(p).reduce((n, c) => n + size(join(p, c)), 0) : statSync(p).size);
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const parts = ["common", ...Object.values(pythons)].map((d) => `${d} ${mb(size(join(libs, d)))}`);
console.log(`bundle-python: ok: ${libs} (${mb(size(libs))}: ${parts.join(", ")})`);
console.log(`bundle-python: CPython ${Object.keys(pythons).join(", ")} for ${process.platform}-${process.arch}; import-tested: ${verified.join(", ") || "none"}`);
console.log(`bundle-python: PYTHONPATH for 3.X: ${join(libs, "common")}${delimiter}${join(libs, "cp3X")}`);
