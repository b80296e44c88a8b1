// Compute what Python asks, in the verifier page's JavaScript, for cross-checking.
// stdin: {"html": path, "cases": [{"op": ..., ...}]}; stdout: a JSON list of results.
// Fields of enc/H/M are tagged: {"s": text}, {"i": "decimal"}, {"b": hex}.
import { loadCore, readStdin } from "./core.mjs";

const task = JSON.parse(readStdin());
const V = loadCore(task.html);
const field = (f) => ("s" in f ? f.s : "i" in f ? BigInt(f.i) : V.fromHex(f.b));
const entropyOf = (e) => Object.fromEntries(Object.entries(e).map(([p, h]) => [p, V.fromHex(h)]));

async function run(c) {
  switch (c.op) {
    case "enc": return V.toHex(V.enc(...c.fields.map(field)));
    case "H": return V.toHex(await V.H(...c.fields.map(field)));
    case "M": return V.toHex(await V.M(V.fromHex(c.key), ...c.fields.map(field)));
    case "canonical": return V.toHex(V.canonical(c.value));
    case "gm_action_text": return V.gmActionText(c.action);
    case "chain": return V.toHex(await V.chainLink(V.fromHex(c.link)));
    case "salt": return V.toHex(await V.gameSalt(c.game_id, entropyOf(c.entropy)));
    case "step_key": return V.toHex(await V.stepKey(V.fromHex(c.s_t), V.fromHex(c.salt), c.t, c.inputs));
    case "faces": {
      const out = [];
      for (const [j, n] of c.dice) out.push(await V.faceAndWords(V.fromHex(c.key), j, n));
      return out;
    }
    case "verify": {
      let record;
      try {
        record = V.parseRecordText(Buffer.from(c.text, "base64"));
      } catch (e) {
        return { readable: false, error: e.message };
      }
      const v = await V.verifyRecord(record, c.held || {});
      return { readable: true, ok: v.ok, complete: v.complete, revision: v.revision, differences: v.differences,
        unchecked: v.unchecked, server_made: v.server_made, held: v.held, terms: v.terms,
        cautions: v.cautions,
        steps: v.steps.map((s) => ({ t: s.t, chain: s.chain, keys: s.keys, checksum: s.checksum,
          step_hash: s.step_hash, rolls: s.rolls.map((r) => r.ok) })) };
    }
    default: throw new Error("unknown op " + c.op);
  }
}

const results = [];
for (const c of task.cases) results.push(await run(c));
process.stdout.write(JSON.stringify(results));
