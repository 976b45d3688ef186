// Pure logic for the server bundled in the extension (bundled/libs, built by scripts/bundle-python.mjs):
// its manifest, which interpreters may run it, and the PYTHONPATH for each. No `vscode` import here.
//
// The bundle holds the pure-Python distributions once (`common`) and the compiled ones (rpds-py,
// PyYAML with its C loader) once per CPython minor version (`cp311`, ...). There is no pure-Python
// fallback: agentv_lsp.yamlpos subclasses yaml.CSafeLoader (libyaml) and jsonschema's `referencing`
// needs rpds-py (Rust), so an interpreter whose minor has no compiled part cannot run the bundle.
import * as path from "path";

export const BUNDLE_MANIFEST = ".agentv-bundle.json";

export interface BundleManifest {
  /** Directory (relative to bundled/libs) of the pure-Python part. */
  common: string;
  /** "3.12" -> directory (relative to bundled/libs) of that minor's compiled part. */
  pythons: Record<string, string>;
  /** Where the bundle was built (process.platform / process.arch); compiled parts run only there. */
  node?: { platform: string; arch: string };
  /** Minors whose import was tested when the bundle was built: tried before the others. */
  verified: string[];
}

/** The manifest, or a sentence saying why it cannot be used. */
export function parseManifest(text: string): BundleManifest | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return `its manifest is not JSON (${String(err)})`;
  }
  const m = raw as Partial<Record<keyof BundleManifest, unknown>> | null;
  if (!m || typeof m !== "object") return "its manifest is not a JSON object";
  const relative = (p: unknown): p is string =>
    typeof p === "string" && p.length > 0 && !path.isAbsolute(p) && !p.split(/[\\/]/).includes("..");
  if (!relative(m.common)) return 'its manifest has no "common" directory (rebuild it: npm run bundle-python)';
  const pythons: Record<string, string> = {};
  if (m.pythons && typeof m.pythons === "object") {
    for (const [minor, dir] of Object.entries(m.pythons as Record<string, unknown>)) {
      if (parseMinor(minor) && relative(dir)) pythons[minor] = dir;
    }
  }
  if (Object.keys(pythons).length === 0) return "its manifest lists no Python version (rebuild it: npm run bundle-python)";
  const node = m.node as { platform?: unknown; arch?: unknown } | undefined;
  const verified = Array.isArray(m.verified) ? m.verified.filter((v): v is string => typeof v === "string" && v in pythons) : [];
  return {
    common: m.common,
    pythons,
    node: node && typeof node.platform === "string" && typeof node.arch === "string" ? { platform: node.platform, arch: node.arch } : undefined,
    verified,
  };
}

/** Why this bundle cannot run on this machine at all, or undefined when it can. */
export function platformMismatch(manifest: BundleManifest, platform: string, arch: string): string | undefined {
  const built = manifest.node;
  if (!built || (built.platform === platform && built.arch === arch)) return undefined;
  return `it was built for ${built.platform}-${built.arch}, this is ${platform}-${arch} (install the .vsix built for this platform, or agentv-lsp itself: pip install agentv-lsp)`;
}

/** The bundle's minors, oldest first. */
export function bundledMinors(manifest: BundleManifest): string[] {
  return Object.keys(manifest.pythons).sort(compareMinors);
}

/** "3.11–3.14" when contiguous, else "3.11, 3.13". */
export function describeMinors(manifest: BundleManifest): string {
  const minors = bundledMinors(manifest);
  const nums = minors.map((m) => parseMinor(m)![1]);
  const contiguous = nums.every((n, i) => i === 0 || n === nums[i - 1] + 1);
  return minors.length > 2 && contiguous ? `${minors[0]}–${minors[minors.length - 1]}` : minors.join(", ");
}

/**
 * Interpreters to try the bundle with when none is configured, best first: `python3.X` for the
 * bundled minors (those tested at build time first, newest first within each group), then
 * `python3` and `python`. On Windows the `py` launcher takes their place: `py -3.X`, `py -3`, `python`.
 */
export function bundleInterpreters(manifest: BundleManifest, platform: string): Interpreter[] {
  const newestFirst = bundledMinors(manifest).reverse();
  const ordered = [...newestFirst.filter((m) => manifest.verified.includes(m)), ...newestFirst.filter((m) => !manifest.verified.includes(m))];
  if (platform === "win32") {
    return [...ordered.map((m) => ({ command: "py", args: [`-${m}`] })), { command: "py", args: ["-3"] }, { command: "python", args: [] }];
  }
  return [...ordered.map((m) => ({ command: `python${m}`, args: [] })), { command: "python3", args: [] }, { command: "python", args: [] }];
}

export interface Interpreter {
  command: string;
  /** Arguments before `-m`/`-c`, e.g. ["-3.12"] for the Windows `py` launcher. */
  args: string[];
}

export function interpreterLabel(i: Interpreter): string {
  return [i.command, ...i.args].join(" ");
}

/** Printed by the version probe: `cpython 3 12 0` (implementation, major, minor, free-threaded). */
export const VERSION_PROBE_CODE =
  "import sys, sysconfig; print(sys.implementation.name, sys.version_info[0], sys.version_info[1], 1 if sysconfig.get_config_var('Py_GIL_DISABLED') else 0)";

export interface PythonVersion {
  implementation: string;
  major: number;
  minor: number;
  freeThreaded: boolean;
}

export function parseVersionOutput(output: string): PythonVersion | undefined {
  const m = /^(\w+) (\d+) (\d+) ([01])\s*$/m.exec(output);
  if (!m) return undefined;
  return { implementation: m[1], major: Number(m[2]), minor: Number(m[3]), freeThreaded: m[4] === "1" };
}

export function describeVersion(v: PythonVersion): string {
  const impl = v.implementation === "cpython" ? "Python" : `${v.implementation} (Python)`;
  return `${impl} ${v.major}.${v.minor}${v.freeThreaded ? " free-threaded" : ""}`;
}

export type BundleFit = { ok: true; minor: string; pythonPath: string } | { ok: false; reason: string };

/** Whether an interpreter of this version can run the bundle, and the PYTHONPATH it needs. */
export function fitBundle(manifest: BundleManifest, libs: string, v: PythonVersion, pathDelimiter: string = path.delimiter): BundleFit {
  const minor = `${v.major}.${v.minor}`;
  const range = describeMinors(manifest);
  const found = describeVersion(v);
  if (v.implementation !== "cpython") return { ok: false, reason: `${found}: the bundled server needs CPython ${range}` };
  if (v.freeThreaded) return { ok: false, reason: `${found}: the bundled server needs a standard (not free-threaded) CPython ${range}` };
  const dir = manifest.pythons[minor];
  if (!dir) {
    const tooOld = v.major < 3 || (v.major === 3 && v.minor < 11);
    return { ok: false, reason: `${found}: ${tooOld ? "too old, " : ""}the bundled server needs Python ${range}` };
  }
  return { ok: true, minor, pythonPath: [path.join(libs, manifest.common), path.join(libs, dir)].join(pathDelimiter) };
}

function parseMinor(s: string): [number, number] | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(s);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function compareMinors(a: string, b: string): number {
  const [am, an] = parseMinor(a)!;
  const [bm, bn] = parseMinor(b)!;
  return am - bm || an - bn;
}
