// Load the verifier page's own core script (the <script id="dicepost-verifier-core"> of
// templates/verify/verifier.html) into this Node process: the tested code IS the page's code.
import { readFileSync } from "node:fs";
import vm from "node:vm";

export function loadCore(htmlPath) {
  const html = readFileSync(htmlPath, "utf8");
  const match = html.match(/<script id="dicepost-verifier-core">([\s\S]*?)<\/script>/);
  if (!match) throw new Error("no dicepost-verifier-core script in " + htmlPath);
  vm.runInThisContext(match[1], { filename: htmlPath + "#dicepost-verifier-core" });
  if (!globalThis.DicepostVerifier) throw new Error("the core script did not define DicepostVerifier");
  return globalThis.DicepostVerifier;
}

export function readStdin() {
  return readFileSync(0, "utf8");
}
