// Pure logic: which commands may start the AgentV server, in which order, and how to explain failure.
// No `vscode` import here: this module is unit-tested directly.
import * as path from "path";
import { type BundleManifest, type Interpreter, describeMinors, interpreterLabel } from "./bundle";

export const SERVER_MODULE_ARGS = ["-m", "agentv_lsp", "serve"];
/**
 * Run by each probe: fails unless the interpreter can import the server, its LSP library and the
 * compiled dependencies (yamlpos needs PyYAML's libyaml loader, jsonschema needs rpds-py), so a
 * missing or foreign-version C extension is reported here, not as a server crash.
 */
export const PROBE_CODE =
  "import sys; import agentv_lsp, pygls, jsonschema, agentv_lsp.yamlpos; print('%d.%d' % sys.version_info[:2], agentv_lsp.__file__)";

export type CandidateSource = "setting-command" | "setting-pythonPath" | "python-extension" | "bundled";

export interface LaunchCandidate {
  source: CandidateSource;
  /** Human-readable, used in logs and in the failure message. */
  label: string;
  command: string;
  args: string[];
  /** Added on top of the extension host's environment. */
  env: Record<string, string>;
  /** Check `import agentv_lsp` with this interpreter before starting it (not for an explicit command). */
  probe: boolean;
  /** Arguments before `-m`/`-c` (the Windows launcher's `-3.12`); already at the start of `args`. */
  interpreterArgs?: string[];
  /** Runs the bundled server: PYTHONPATH is chosen once the interpreter's version is known. */
  bundle?: BundleInputs;
}

export interface BundleInputs {
  /** Absolute path of `<extension>/bundled/libs`. */
  libs: string;
  manifest: BundleManifest;
}

export type PythonExtensionInfo =
  | { state: "not-installed" }
  | { state: "no-interpreter"; detail?: string }
  | { state: "ok"; interpreter: string };

export interface CandidateInputs {
  serverCommand: string[];
  pythonPath: string;
  serverEnv: Record<string, string>;
  pythonExtension: PythonExtensionInfo;
  /** The server bundled in the extension, when this build has a usable one. */
  bundle?: BundleInputs;
  /** Why there is no usable bundle (when `bundle` is undefined). */
  bundleProblem?: string;
  /** Interpreters tried with the bundle, in order, after the Python extension's one (see bundleInterpreters). */
  systemPythons: Interpreter[];
  /** vscode.workspace.isTrusted. Untrusted: no program from inside the workspace folders is run. */
  trusted: boolean;
  /** Absolute paths of the workspace folders. */
  workspaceFolders: string[];
}

/** Env for `python -m agentv_lsp`: never put the working directory on sys.path (Python 3.11+). */
const MODULE_ENV = { PYTHONSAFEPATH: "1" };

export interface Plan {
  candidates: LaunchCandidate[];
  /** Ways that were considered but could not even be tried (shown in the failure message). */
  skipped: string[];
}

/**
 * The lookup order:
 *  1. `agentv.server.command` (used as is, exclusively),
 *  2. `agentv.server.pythonPath` (exclusively: an explicit choice never falls back to another
 *     interpreter): its own agentv_lsp, else the bundled server run by it,
 *  3. the Python extension's active interpreter, if it has agentv_lsp installed,
 *  4. the server bundled in the extension, run by the Python extension's interpreter, then by each
 *     of `systemPythons`; each is asked its version first, and only a CPython minor the bundle has
 *     compiled parts for runs it (PYTHONPATH = `common` + that minor's directory).
 */
export function planCandidates(inp: CandidateInputs): Plan {
  const plan = planAll(inp);
  if (inp.trusted) return plan;
  // Untrusted workspace: a program inside the workspace (e.g. its .venv) could be anything.
  const inside = (cmd: string) =>
    path.isAbsolute(cmd) && inp.workspaceFolders.some((f) => isInside(path.resolve(cmd), path.resolve(f)));
  const blocked = plan.candidates.filter((c) => inside(c.command));
  return {
    candidates: plan.candidates.filter((c) => !inside(c.command)),
    skipped: [
      ...plan.skipped,
      ...blocked.map((c) => `${c.label}: not run, it is inside the untrusted workspace (trust the workspace to use it)`),
    ],
  };
}

function planAll(inp: CandidateInputs): Plan {
  const env = { ...inp.serverEnv };
  const moduleEnv = { ...MODULE_ENV, ...env };
  const cmd = inp.serverCommand.filter((s) => typeof s === "string" && s.length > 0);
  if (cmd.length > 0) {
    return {
      candidates: [
        { source: "setting-command", label: `agentv.server.command (${cmd.join(" ")})`, command: cmd[0], args: cmd.slice(1), env, probe: false },
      ],
      skipped: [],
    };
  }
  if (inp.pythonPath.trim()) {
    const py = inp.pythonPath.trim();
    const label = `agentv.server.pythonPath (${py})`;
    const own: LaunchCandidate = { source: "setting-pythonPath", label, command: py, args: [...SERVER_MODULE_ARGS], env: moduleEnv, probe: true };
    return {
      candidates: [own, ...(inp.bundle ? [bundledCandidate(inp.bundle, { command: py, args: [] }, moduleEnv, label)] : [])],
      skipped: [],
    };
  }
  const candidates: LaunchCandidate[] = [];
  const skipped: string[] = ["agentv.server.command and agentv.server.pythonPath: not set"];
  const pyExt = inp.pythonExtension;
  if (pyExt.state === "ok") {
    candidates.push({
      source: "python-extension",
      label: `Python extension interpreter (${pyExt.interpreter})`,
      command: pyExt.interpreter,
      args: [...SERVER_MODULE_ARGS],
      env: moduleEnv,
      probe: true,
    });
  } else if (pyExt.state === "not-installed") {
    skipped.push("Python extension (ms-python.python): not installed");
  } else {
    skipped.push(`Python extension (ms-python.python): no active interpreter${pyExt.detail ? ` (${pyExt.detail})` : ""}`);
  }
  if (inp.bundle) {
    const pythons = [...(pyExt.state === "ok" ? [{ command: pyExt.interpreter, args: [] }] : []), ...inp.systemPythons];
    const seen = new Set<string>();
    for (const py of pythons) {
      const key = interpreterLabel(py);
      if (seen.has(key)) continue;
      seen.add(key);
      candidates.push(bundledCandidate(inp.bundle, py, moduleEnv, key));
    }
  } else {
    skipped.push(`bundled server: ${inp.bundleProblem ?? "this build of the extension has no bundled/libs"}`);
  }
  return { candidates, skipped };
}

function bundledCandidate(bundle: BundleInputs, py: Interpreter, moduleEnv: Record<string, string>, by: string): LaunchCandidate {
  return {
    source: "bundled",
    label: `bundled server run by ${by}`,
    command: py.command,
    args: [...py.args, ...SERVER_MODULE_ARGS],
    interpreterArgs: [...py.args],
    // PYTHONPATH is added once the interpreter's version is known (chooseCandidate).
    env: { ...moduleEnv, PYTHONNOUSERSITE: "1" },
    probe: true,
    bundle,
  };
}

export interface Attempt {
  label: string;
  error: string;
}

/** The message shown when nothing could start. Names every way tried and how to fix it. */
export function failureMessage(plan: Plan, attempts: Attempt[]): string {
  const lines = [
    ...plan.skipped.map((s) => `- ${s}`),
    ...attempts.map((a) => `- ${a.label}: ${firstLine(a.error)}`),
  ];
  const explicit = plan.candidates.some((c) => c.source === "setting-command" || c.source === "setting-pythonPath");
  const bundle = plan.candidates.find((c) => c.bundle)?.bundle;
  const range = bundle ? describeMinors(bundle.manifest) : "3.11 or newer";
  const fix = explicit
    ? `Fix the setting (a Python ${range} interpreter, or one with agentv-lsp installed), or clear it to let the extension find a Python itself.`
    : bundle
      ? `Install Python ${range} (python.org, your package manager or pyenv) so that one of the commands above finds it, or set "agentv.server.pythonPath" to such an interpreter, or "agentv.server.command" to a command that starts the server (e.g. after pip install agentv-lsp).`
      : 'Set "agentv.server.pythonPath" to a Python 3.11+ interpreter that has the agentv-lsp package installed (pip install agentv-lsp), or select such an interpreter in the Python extension.';
  return `AgentV: could not start the language server. Tried:\n${lines.join("\n")}\n${fix}`;
}

/**
 * The notification for a failed start: one paragraph (notifications show no line breaks), the fix
 * first, the settings by the names the Settings editor shows; the full list of what was tried goes
 * to the log (`failureMessage`).
 */
export function failureNotice(plan: Plan, attempts: Attempt[]): string {
  const full = failureMessage(plan, attempts);
  const fix = full.slice(full.lastIndexOf("\n") + 1).replace("the commands above", "the commands tried");
  const tried = [...plan.skipped, ...attempts.map((a) => `${a.label}: ${firstLine(a.error)}`)];
  const named = fix
    .replace(/"agentv\.server\.pythonPath"/g, "AgentV › Server: Python Path (agentv.server.pythonPath)")
    .replace(/"agentv\.server\.command"/g, "AgentV › Server: Command (agentv.server.command)");
  return `AgentV: could not start the language server. ${named} Tried: ${tried.join("; ")}.`;
}

/** Expand `${workspaceFolder}`, `${userHome}`, `~` and `${env:NAME}` in a path-like setting. */
export function expandVariables(
  value: string,
  vars: { workspaceFolder?: string; home?: string; env?: Record<string, string | undefined> },
): string {
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (m, name: string, envName?: string) => {
    if (envName) return vars.env?.[envName] ?? "";
    if (name === "workspaceFolder") return vars.workspaceFolder ?? m;
    if (name === "userHome") return vars.home ?? m;
    return m;
  });
  if (vars.home && (out === "~" || out.startsWith("~/") || out.startsWith("~\\"))) {
    out = path.join(vars.home, out.slice(1));
  }
  return out;
}

/** Extracts the interpreter path from what ms-python.python's API returns. */
export function interpreterFromResolved(resolved: unknown): string | undefined {
  const r = resolved as { executable?: { uri?: { fsPath?: string }; path?: string } } | undefined;
  return r?.executable?.uri?.fsPath || undefined;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

function firstLine(s: string): string {
  const lines = s.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  // Python tracebacks put the useful line last.
  const last = lines[lines.length - 1] ?? "unknown error";
  return lines.length > 1 && /^Traceback/.test(lines[0]) ? last : lines[0] ?? last;
}
