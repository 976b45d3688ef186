// What the user is told after "Migrate this file to AgentV 4": the server takes in its own edit and
// sends agentv/migrated (the new file, the rename, the other files it rewrote); the extension says so,
// brings the preview and the status item up to date, and offers the per-test proof (agentv.migrationProof).

export const MIGRATED_NOTIFICATION = "agentv/migrated";
export const SERVER_MIGRATION_PROOF = "agentv.migrationProof";
export const SHOW_PROOF = "Show Per-Test Proof";

export interface MigrationReport {
  file: string;
  uri: string;
  oldUri: string;
  renamedFrom: string | null;
  otherFiles: { file: string; reason: string }[];
  attention: string[];
}

const MAX_SHOWN = 200;

function clip(text: string): string {
  // file names and reasons come from the workspace: one line, bounded
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, " ");
  return flat.length > MAX_SHOWN ? `${flat.slice(0, MAX_SHOWN - 1)}…` : flat;
}

/** The report as it arrives (JSON from the server), or undefined when it is not one. */
export function parseMigrationReport(raw: unknown): MigrationReport | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.file !== "string" || typeof r.uri !== "string") return undefined;
  const others = Array.isArray(r.otherFiles) ? r.otherFiles : [];
  return {
    file: r.file,
    uri: r.uri,
    oldUri: typeof r.oldUri === "string" ? r.oldUri : r.uri,
    renamedFrom: typeof r.renamedFrom === "string" ? r.renamedFrom : null,
    otherFiles: others
      .filter((o): o is { file: string; reason: string } => !!o && typeof o === "object" && typeof (o as { file?: unknown }).file === "string")
      .map((o) => ({ file: o.file, reason: typeof o.reason === "string" ? o.reason : "" })),
    attention: Array.isArray(r.attention) ? r.attention.filter((a): a is string => typeof a === "string") : [],
  };
}

/** One paragraph: what was migrated, renamed and rewritten, and what needs a person. */
export function describeMigration(report: MigrationReport): string {
  const parts = [`AgentV: migrated ${clip(report.file)} to AgentV 4`];
  if (report.renamedFrom) parts[0] += ` (renamed from ${clip(report.renamedFrom)}, so that AgentV 4 finds it)`;
  parts[0] += ".";
  if (report.otherFiles.length > 0) {
    const files = report.otherFiles.map((o) => (o.reason ? `${clip(o.file)} (${clip(o.reason)})` : clip(o.file)));
    parts.push(`Also rewrote ${files.join("; ")}: save ${report.otherFiles.length === 1 ? "it" : "them"} with the eval file.`);
  }
  if (report.attention.length > 0) {
    parts.push(`Needs your attention: ${clip(report.attention[0])}${report.attention.length > 1 ? ` (+${report.attention.length - 1} more, see Problems)` : ""}.`);
  }
  return parts.join(" ");
}

/** The proof the server answers (`{title, markdown}`), or undefined. */
export function parseProof(raw: unknown): { title: string; markdown: string } | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const r = raw as Record<string, unknown>;
  return typeof r.title === "string" && typeof r.markdown === "string" ? { title: r.title, markdown: r.markdown } : undefined;
}
