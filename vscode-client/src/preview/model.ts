// Pure logic: the shapes returned by the server's agentv.previewCase / agentv.previewFile commands,
// defensive normalisation of whatever comes back, and building the command arguments.
import * as path from "path";

/** LSP command ids implemented by the server (workspace/executeCommand). */
export const SERVER_PREVIEW_CASE = "agentv.previewCase";
export const SERVER_PREVIEW_FILE = "agentv.previewFile";
/** Custom request for the language status item; optional on the server side. */
export const STATUS_REQUEST = "agentv/status";

export interface ChatMessage {
  role: string;
  content: string;
}

export interface PromptMode {
  question: string;
  guidelines: string;
  chatPrompt: ChatMessage[] | null;
  /** AgentV 4.x: the leading system text, sent as the system prompt (null: none). */
  systemMessage?: string | null;
}

export interface JudgePrompt {
  question: string;
  systemPrompt: string;
}

export interface CasePreview {
  id: string;
  conversation_id: string | null;
  expected_outcome: string;
  lm: PromptMode;
  agent: PromptMode;
  guideline_paths: string[];
  file_paths: string[];
  reference_answer: string;
  judge_prompt: JudgePrompt | null;
  warnings: string[];
  /** Set when AgentV would skip this case (e.g. a required field is missing); the rest is empty. */
  error?: string;
  /** AgentV 4.x only (absent for v2 cases): */
  criteria?: string;
  expected_output?: ChatMessage[];
  /** The runtime's parsed grader configs, shown as JSON. */
  assertions?: unknown[];
  /** Which AgentV judged the file, e.g. "4.42.4". */
  runtime?: string;
  /** Token counts of the candidate's prompt and the grader prompt (agentv-lsp diff / preview). */
  tokens?: TokenCounts;
}

export interface TokenCounts {
  tokenizer: string;
  candidate: number;
  grader: number | null;
}

function tokenCounts(v: unknown): { tokens?: TokenCounts } {
  const o = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
  if (typeof o.tokenizer !== "string" || typeof o.candidate !== "number") return {};
  return { tokens: { tokenizer: o.tokenizer, candidate: o.candidate, grader: typeof o.grader === "number" ? o.grader : null } };
}

export interface FilePreview {
  file: string;
  load_error: string | null;
  warnings: string[];
  cases: CasePreview[];
  runtime?: string;
}

export interface RuntimeInfo {
  major: number;
  /** "4.42.4" or "2 (agentv-eval-v2)" */
  version: string;
  /** Why this runtime judges the document (for people). */
  reason: string;
}

export interface StatusInfo {
  schema: string | null;
  config: string | null;
  /** "eval" | "config" | "targets" | "cases" | null */
  kind?: string | null;
  targets?: string | null;
  cases?: number | null;
  /** Which AgentV judges the document and why (absent from older servers). */
  runtime?: RuntimeInfo;
}

export interface Pos {
  line: number;
  character: number;
}

/** Arguments for workspace/executeCommand agentv.previewCase: a case id wins over a position. */
export function previewCaseArgs(uri: string, target: { caseId?: string; position?: Pos }): [Record<string, unknown>] {
  if (target.caseId) return [{ uri, caseId: target.caseId }];
  if (target.position) return [{ uri, position: { line: target.position.line, character: target.position.character } }];
  return [{ uri }];
}

export function previewFileArgs(uri: string): [{ uri: string }] {
  return [{ uri }];
}

/**
 * Reads the first argument of an agentv.previewCase / agentv.showPreview invocation (from a code lens,
 * a keybinding or another extension). Accepts `{uri, caseId?, position?}`; returns undefined otherwise.
 */
export function parsePreviewTarget(args: unknown[]): { uri: string; caseId?: string; position?: Pos } | undefined {
  const a = args[0];
  if (!a || typeof a !== "object") return undefined;
  const o = a as Record<string, unknown>;
  const uri = typeof o.uri === "string" ? o.uri : uriToString(o.uri);
  if (!uri) return undefined;
  const out: { uri: string; caseId?: string; position?: Pos } = { uri };
  if (typeof o.caseId === "string" && o.caseId) out.caseId = o.caseId;
  const p = o.position as Record<string, unknown> | undefined;
  if (p && typeof p.line === "number" && typeof p.character === "number") out.position = { line: p.line, character: p.character };
  return out;
}

function uriToString(u: unknown): string | undefined {
  // A vscode.Uri passed by another extension.
  if (u && typeof u === "object" && typeof (u as { toString: unknown }).toString === "function" && "scheme" in (u as object)) {
    return String(u);
  }
  return undefined;
}

const str = (v: unknown, dflt = ""): string => (typeof v === "string" ? v : v == null ? dflt : String(v));
const strOrNull = (v: unknown): string | null => (typeof v === "string" ? v : v == null ? null : String(v));
const strList = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => str(x)) : []);

function message(m: unknown): ChatMessage {
  const mm = (m && typeof m === "object" ? m : {}) as Record<string, unknown>;
  return { role: str(mm.role, "unknown"), content: typeof mm.content === "string" ? mm.content : JSON.stringify(mm.content ?? "", null, 2) };
}

function mode(v: unknown): PromptMode {
  const o = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
  const chat = Array.isArray(o.chatPrompt) ? o.chatPrompt.map(message) : null;
  const out: PromptMode = { question: str(o.question), guidelines: str(o.guidelines), chatPrompt: chat };
  if ("systemMessage" in o) out.systemMessage = strOrNull(o.systemMessage);
  return out;
}

/** The 4.x fields of a case, only those the server sent (v2 cases have none). */
function v4Fields(o: Record<string, unknown>): Partial<CasePreview> {
  const out: Partial<CasePreview> = {};
  if (typeof o.criteria === "string") out.criteria = o.criteria;
  if (Array.isArray(o.expected_output)) out.expected_output = o.expected_output.map(message);
  if (Array.isArray(o.assertions)) out.assertions = o.assertions;
  if (typeof o.runtime === "string" && o.runtime) out.runtime = o.runtime;
  return out;
}

/** Normalises a server answer into a CasePreview; null when it is not a case. */
export function normalizeCase(v: unknown): CasePreview | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const error = typeof o.error === "string" && o.error ? o.error : undefined;
  if (o.id == null && !error) return null;
  const jp = o.judge_prompt && typeof o.judge_prompt === "object" ? (o.judge_prompt as Record<string, unknown>) : null;
  return {
    id: o.id == null ? "(case without an id)" : str(o.id),
    conversation_id: strOrNull(o.conversation_id),
    expected_outcome: str(o.expected_outcome),
    lm: mode(o.lm),
    agent: mode(o.agent),
    guideline_paths: strList(o.guideline_paths),
    file_paths: strList(o.file_paths),
    reference_answer: str(o.reference_answer),
    judge_prompt: jp ? { question: str(jp.question), systemPrompt: str(jp.systemPrompt) } : null,
    warnings: strList(o.warnings),
    ...(error ? { error } : {}),
    ...v4Fields(o),
    ...tokenCounts(o.tokens),
  };
}

export function normalizeFile(v: unknown): FilePreview | null {
  if (!v || typeof v !== "object" || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  return {
    file: str(o.file),
    load_error: strOrNull(o.load_error),
    warnings: strList(o.warnings),
    cases: (Array.isArray(o.cases) ? o.cases : []).map(normalizeCase).filter((c): c is CasePreview => c !== null),
    ...(typeof o.runtime === "string" && o.runtime ? { runtime: o.runtime } : {}),
  };
}

export function normalizeStatus(v: unknown): StatusInfo | null {
  if (!v || typeof v !== "object") return null;
  const o = v as Record<string, unknown>;
  const runtime = runtimeInfo(o.runtime).runtime;
  // 4.x files have no `$schema`: the item then names the runtime ("AgentV 4.42.4"), not "no $schema"
  const v4Label = runtime && runtime.major >= 3 && o.kind != null ? runtime.version : null;
  return {
    schema: strOrNull(o.schema) ?? v4Label,
    config: strOrNull(o.config),
    kind: strOrNull(o.kind),
    targets: strOrNull(o.targets),
    cases: typeof o.cases === "number" ? o.cases : null,
    ...runtimeInfo(o.runtime),
  };
}

function runtimeInfo(v: unknown): { runtime?: RuntimeInfo } {
  if (!v || typeof v !== "object") return {};
  const o = v as Record<string, unknown>;
  if (typeof o.major !== "number") return {};
  return { runtime: { major: o.major, version: str(o.version), reason: str(o.reason) } };
}

/**
 * Where a path listed in a preview (guideline_paths, file_paths) lives. The server may send absolute
 * paths or paths relative to the repository root; relative ones are tried against the workspace
 * folder, then against the eval file's folder. Returns the first that exists.
 */
export function resolveLinkedFile(
  p: string,
  evalFile: string | undefined,
  workspaceFolder: string | undefined,
  exists: (p: string) => boolean,
): string | undefined {
  if (path.isAbsolute(p)) return exists(p) ? p : undefined;
  const bases = [workspaceFolder, evalFile ? path.dirname(evalFile) : undefined].filter((b): b is string => !!b);
  for (const b of bases) {
    const full = path.resolve(b, p);
    if (exists(full)) return full;
  }
  return undefined;
}

/** Messages from the extension to the webview. */
export type ToWebview =
  | { type: "case"; case: CasePreview; fileName: string }
  | { type: "file"; file: FilePreview; fileName: string }
  | { type: "empty"; message: string }
  | { type: "error"; message: string };

/** Messages from the webview to the extension. */
export type FromWebview =
  | { type: "ready" }
  | { type: "copy"; text: string }
  | { type: "openFile"; path: string };

export function parseFromWebview(m: unknown): FromWebview | undefined {
  if (!m || typeof m !== "object") return undefined;
  const o = m as Record<string, unknown>;
  if (o.type === "ready") return { type: "ready" };
  if (o.type === "copy" && typeof o.text === "string") return { type: "copy", text: o.text };
  if (o.type === "openFile" && typeof o.path === "string" && o.path) return { type: "openFile", path: o.path };
  return undefined;
}
