// Runs an interpreter briefly to check that it can import the server (Node only, no vscode).
import { execFile } from "child_process";
import { PROBE_CODE } from "./python";

export interface ProbeResult {
  ok: boolean;
  /** stdout on success ("3.11 /path/agentv_lsp/__init__.py"), the error otherwise. */
  output: string;
}

export type Prober = (command: string, env: Record<string, string>, cwd: string | undefined) => Promise<ProbeResult>;

export const probeInterpreter: Prober = (command, env, cwd) =>
  new Promise((resolve) => {
    execFile(
      command,
      ["-c", PROBE_CODE],
      { env: { ...process.env, ...env }, cwd, timeout: 20_000, windowsHide: true, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const why =
            code === "ENOENT" ? `${command}: not found` : (stderr || "").trim() || err.message || `exit code ${String(code)}`;
          resolve({ ok: false, output: why });
        } else {
          resolve({ ok: true, output: stdout.trim() });
        }
      },
    );
  });
