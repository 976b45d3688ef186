// Pure logic: reading the `agentv.*` settings, and what the server and the client derive from them.
// No `vscode` import here: this module is unit-tested directly.

export const SECTION = "agentv";

/** The subset of vscode.WorkspaceConfiguration this module uses. */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
}

export interface ExtensionSettings {
  serverCommand: string[];
  pythonPath: string;
  serverEnv: Record<string, string>;
  evalGlobs: string[];
  maxFileSizeKb: number;
  previewDebounceMs: number;
  previewFollowCursor: boolean;
  codeLensEnabled: boolean;
  trace: "off" | "messages" | "verbose";
}

export const DEFAULTS: ExtensionSettings = {
  serverCommand: [],
  pythonPath: "",
  serverEnv: {},
  evalGlobs: ["**/*.yaml", "**/*.yml"],
  maxFileSizeKb: 8192,
  previewDebounceMs: 300,
  previewFollowCursor: true,
  codeLensEnabled: true,
  trace: "off",
};

/** Settings whose change needs a server restart (the rest are re-read live). */
export const RESTART_KEYS = ["server.command", "server.pythonPath", "server.env", "evalGlobs"];

/** Reads `agentv.*` with type checks; a wrong type falls back to the default instead of throwing. */
export function readSettings(cfg: ConfigReader): ExtensionSettings {
  const strArray = (key: string, dflt: string[]): string[] => {
    const v = cfg.get<unknown>(key);
    return Array.isArray(v) && v.every((x) => typeof x === "string") ? [...v] : [...dflt];
  };
  const str = (key: string, dflt: string): string => {
    const v = cfg.get<unknown>(key);
    return typeof v === "string" ? v : dflt;
  };
  const num = (key: string, dflt: number, min: number, max: number): number => {
    const v = cfg.get<unknown>(key);
    return typeof v === "number" && Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : dflt;
  };
  const bool = (key: string, dflt: boolean): boolean => {
    const v = cfg.get<unknown>(key);
    return typeof v === "boolean" ? v : dflt;
  };
  const envRaw = cfg.get<unknown>("server.env");
  const serverEnv: Record<string, string> = {};
  if (envRaw && typeof envRaw === "object" && !Array.isArray(envRaw)) {
    for (const [k, v] of Object.entries(envRaw as Record<string, unknown>)) {
      if (typeof v === "string") serverEnv[k] = v;
    }
  }
  const trace = str("trace.server", DEFAULTS.trace);
  const globs = strArray("evalGlobs", DEFAULTS.evalGlobs).filter((g) => g.trim().length > 0);
  return {
    serverCommand: strArray("server.command", DEFAULTS.serverCommand),
    pythonPath: str("server.pythonPath", DEFAULTS.pythonPath),
    serverEnv,
    evalGlobs: globs.length > 0 ? globs : [...DEFAULTS.evalGlobs],
    maxFileSizeKb: Math.round(num("maxFileSizeKb", DEFAULTS.maxFileSizeKb, 1, 1024 * 1024)),
    previewDebounceMs: Math.round(num("preview.debounceMs", DEFAULTS.previewDebounceMs, 0, 5000)),
    previewFollowCursor: bool("preview.followCursor", DEFAULTS.previewFollowCursor),
    codeLensEnabled: bool("codeLens.enabled", DEFAULTS.codeLensEnabled),
    trace: trace === "messages" || trace === "verbose" ? trace : "off",
  };
}

/** The `settings` object the server gets in initializationOptions and in workspace/configuration. */
export function serverSettings(raw: unknown, trusted: boolean): Record<string, unknown> {
  const base = raw && typeof raw === "object" && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : {};
  return { ...base, trustedWorkspace: trusted };
}

/**
 * Middleware helper for workspace/configuration: adds `trustedWorkspace` to every answer for the
 * `agentv` section (or for a request with no section, which returns the whole settings tree).
 */
export function augmentConfiguration(
  items: { section?: string | null }[],
  results: unknown[],
  trusted: boolean,
): unknown[] {
  return results.map((r, i) => {
    const section = items[i]?.section;
    if (section === SECTION) return serverSettings(r, trusted);
    if (!section && r && typeof r === "object" && SECTION in (r as object)) {
      return { ...(r as object), [SECTION]: serverSettings((r as Record<string, unknown>)[SECTION], trusted) };
    }
    return r;
  });
}

export interface DocumentFilter {
  language?: string;
  scheme: string;
  pattern?: string;
}

/**
 * Which documents go to the server: YAML files matching `agentv.evalGlobs` (the server itself ignores
 * files that do not declare `$schema: agentv-eval-v2`) plus every `.agentv/*.yaml` config file.
 */
export function documentSelector(evalGlobs: string[]): DocumentFilter[] {
  const filters: DocumentFilter[] = evalGlobs.map((pattern) => ({ language: "yaml", scheme: "file", pattern }));
  filters.push({ scheme: "file", pattern: "**/.agentv/*.yaml" });
  filters.push({ scheme: "file", pattern: "**/.agentv/*.yml" });
  return filters;
}

/** True when a configuration change touches a key that needs a restart. */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return RESTART_KEYS.some((k) => affects(`${SECTION}.${k}`));
}
