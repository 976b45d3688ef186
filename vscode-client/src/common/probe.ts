// Runs an interpreter briefly to check that it can import the server, or to ask its version
// (Node only, no vscode).
import { execFile } from "child_process";
import { VERSION_PROBE_CODE } from "./bundle";
import { PROBE_CODE } from "./python";

export interface ProbeResult {
  ok: boolean;
  /** stdout on success ("3.11 /path/agentv_lsp/__init__.py"), the error otherwise. */
  output: string;
}

/** `interpreterArgs` go before `-c` (the Windows launcher's `-3.12`). */
export type Prober = (
  command: string,
  env: Record<string, string>,
  cwd: string | undefined,
  interpreterArgs?: string[],
) => Promise<ProbeResult>;

/** Asks an interpreter for its version (stdout: see VERSION_PROBE_CODE). */
export type VersionProber = Prober;

const run = (code: string, timeout: number): Prober => (command, env, cwd, interpreterArgs = []) =>
  new Promise((resolve) => {
    execFile(
      command,
      [...interpreterArgs, "-c", code],
      { env: { ...process.env, ...env }, cwd, timeout, windowsHide: true, maxBuffer: 1 << 20 },
      (err, stdout, stderr) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code;
          const e = err as { killed?: boolean; signal?: string };
          const why =
            code === "ENOENT"
              ? `${command}: not found`
              : e.killed && e.signal === "SIGTERM"
                ? `${command}: no answer within ${timeout / 1000} s`
                : (stderr || "").trim() || err.message || `exit code ${String(code)}`;
          resolve({ ok: false, output: why });
        } else {
          resolve({ ok: true, output: stdout.trim() });
        }
      },
    );
  });

export const probeInterpreter: Prober = run(PROBE_CODE, 20_000);

// Short: it runs for every interpreter name tried, and a missing one answers at once.
export const probeVersion: VersionProber = run(VERSION_PROBE_CODE, 10_000);
