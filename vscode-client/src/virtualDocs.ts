// Documents the extension generates (a migration's per-test proof, the two sides of "Compare prompt
// with HEAD"): read-only and virtual (a TextDocumentContentProvider), so never dirty and never an
// "Untitled-1 ●" that asks to be saved. Only addresses this extension issued are served: a link to
// `agentv-prompt:…` in a workspace file gets a refusal, and nothing is read or sent to the server.
import { randomBytes } from "node:crypto";

/** How many generated documents are kept (the oldest is forgotten first). */
export const MAX_KEPT = 64;
export const REFUSED =
  "This AgentV document was not opened by the AgentV extension in this window (or is no longer kept): nothing is shown.";

export class VirtualDocuments {
  private readonly texts = new Map<string, string>(); // by nonce (the address's query)

  constructor(readonly scheme: string) {}

  /**
   * Keep `text` under a fresh address `<scheme>:/<segments>?<random nonce>` and return it. The
   * segments are what the tab shows (the last one's extension picks the language: `.md` is Markdown).
   */
  issue(segments: string[], text: string): string {
    const path = segments.map((s) => encodeURIComponent(s.replace(/[\/]/g, "∕"))).join("/");
    const nonce = randomBytes(12).toString("hex");
    this.texts.set(nonce, text);
    while (this.texts.size > MAX_KEPT) {
      const oldest = this.texts.keys().next().value;
      if (oldest === undefined) break;
      this.texts.delete(oldest);
    }
    return `${this.scheme}:/${path}?${nonce}`;
  }

  /** The text of an address this extension issued (by its query, the nonce), else the refusal. */
  provide(query: string): string {
    return this.texts.get(query) ?? REFUSED;
  }
}
