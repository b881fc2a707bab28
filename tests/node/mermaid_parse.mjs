// Each Mermaid diagram of the docs, parsed by Mermaid itself (the major version mkdocs-material loads in the
// browser, pinned in package.json): reads a JSON list of diagram texts on stdin, prints a JSON list with, for
// each, null when Mermaid reads it or the first lines of its parse error. Mermaid sanitizes labels with
// DOMPurify, which needs a window: jsdom's (on Node 22, as jsdom 31 asks).
import { JSDOM } from "jsdom";

const { window } = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = window;
globalThis.document = window.document;
const { default: mermaid } = await import("mermaid");

let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    results.push(null);
  } catch (error) {
    results.push(String(error?.message ?? error).split("\n").slice(0, 3).join(" "));
  }
}
process.stdout.write(JSON.stringify(results));
