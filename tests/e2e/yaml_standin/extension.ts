// A stand-in for Red Hat's YAML extension (vscode-yaml has no package on the registries here): it runs
// yaml-language-server (AGENTV_E2E_YLS: its bin script) and sends it the yamlValidation of every
// installed extension, as vscode-yaml's src/extension.ts (getSchemaAssociations) does.
import * as vscode from "vscode";
import { LanguageClient, TransportKind } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function schemaAssociations(): { fileMatch: string[]; uri: string }[] {
  const out: { fileMatch: string[]; uri: string }[] = [];
  for (const extension of vscode.extensions.all) {
    const entries = extension.packageJSON?.contributes?.yamlValidation;
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) {
      const matches: unknown = typeof entry.fileMatch === "string" ? [entry.fileMatch] : entry.fileMatch;
      if (!Array.isArray(matches) || typeof entry.url !== "string") continue;
      const uri = entry.url.startsWith("./") ? vscode.Uri.joinPath(extension.extensionUri, entry.url).toString() : entry.url;
      out.push({ uri, fileMatch: matches.map((m: string) => (/^(\w+:\/\/|\/|!)/.test(m) ? m : `/${m}`)) });
    }
  }
  return out;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const bin = process.env.AGENTV_E2E_YLS;
  if (!bin) return;
  client = new LanguageClient(
    "yaml-standin",
    "YAML stand-in",
    { command: process.execPath, args: [bin, "--stdio"], transport: TransportKind.stdio, options: { env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" } } },
    { documentSelector: [{ language: "yaml" }], synchronize: { configurationSection: ["yaml"] } },
  );
  context.subscriptions.push(client);
  await client.start();
  await client.sendNotification("json/schemaAssociations", schemaAssociations());
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
