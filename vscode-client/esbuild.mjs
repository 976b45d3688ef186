// Bundles the extension (Node, cjs) and the preview webview script (browser, iife).
// `--tests` bundles test/*.test.ts for node's test runner with `vscode` aliased to a mock.
import * as esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");
const tests = process.argv.includes("--tests");

const common = { bundle: true, sourcemap: !production, minify: production, logLevel: "info" };

const builds = tests
  ? [{
      ...common,
      minify: false,
      sourcemap: "inline",
      entryPoints: readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => `test/${f}`),
      outdir: "out-test",
      platform: "node",
      format: "cjs",
      target: "node20",
      alias: { vscode: "./test/mocks/vscode.ts" },
      logLevel: "warning",
    }]
  : [
      {
        ...common,
        entryPoints: ["src/extension.ts"],
        outfile: "dist/extension.js",
        platform: "node",
        format: "cjs",
        target: "node20",
        external: ["vscode"],
        sourcemap: true,
      },
      {
        ...common,
        entryPoints: ["src/preview/webview/main.ts"],
        outfile: "dist/webview.js",
        platform: "browser",
        format: "iife",
        target: "es2022",
      },
    ];

if (tests) rmSync("out-test", { recursive: true, force: true });
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
}
