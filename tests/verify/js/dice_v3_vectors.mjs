// Every dicepost-dice/v3 test vector of docs/dice-spec.md, in the verifier page's JavaScript.
// Usage: node dice_v3_vectors.mjs path/to/verifier.html vectors.json  (exit 0 and "ok N" when all hold)
// vectors.json: the table as tests/engine/test_dice_v3_vectors.py holds it, and the inputs.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadCore } from "./core.mjs";

const V = loadCore(process.argv[2]);
const { vectors: want, inputs } = JSON.parse(readFileSync(process.argv[3], "utf8"));
const P = "dicepost-dice/v3";
assert.ok(V.PROFILES.includes(P));
const hex = V.toHex;
let checked = 0;
const eq = (a, b, what) => { assert.equal(a, b, what); checked++; };

const links = [V.fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")];
for (let i = 0; i < 4; i++) links.unshift(await V.chainLink(links[0], P));
eq(hex(links[0]), want.S_0, "S_0");
eq(hex(links[1]), want.S_1, "S_1");
eq(hex(links[2]), want.S_2, "S_2");

const alice = await V.H(P, "words", inputs.game, "alice", want.words);
eq(hex(alice), want.E_alice, "E_alice from the words");
const bob = await V.H(P, "server-made", links[0], inputs.game, "bob");
eq(hex(bob), want.E_bob, "server-made E_bob");
const salt = await V.gameSalt(inputs.game, { alice, bob }, P);
eq(hex(salt), want.G, "G");
const terms = await V.termsDigest(inputs.game, inputs.terms);
eq(hex(terms), want.T, "T");
eq(hex(await V.H(P, "force", inputs.game, "alice", V.canonical(inputs.force))), want.F_alice, "F_alice");

eq(hex(await V.inputsDigest(inputs.step1, P)), want.D_1, "D_1");
const k1 = await V.stepKey(links[1], salt, 1, inputs.step1, P);
eq(hex(k1), want.K_1, "K_1");
const faces1 = [];
for (let j = 0; j < 10; j++) faces1.push(await V.face(k1, j, 6, P));
eq(faces1.join(" "), want["step 1 d6"], "step 1 d6");

eq(hex(await V.inputsDigest(inputs.step2, P)), want.D_2, "D_2");
const k2 = await V.stepKey(links[2], salt, 2, inputs.step2, P);
eq(hex(k2), want.K_2, "K_2");
const faces2 = [];
for (let j = 0; j < 5; j++) faces2.push(await V.face(k2, j, 20, P));
eq(faces2.join(" "), want["step 2 d20"], "step 2 d20");

const b = await V.M(links[2], P, "bot", salt, 2, "bob");
eq(hex(b), want.B, "bot key");
const choices = [];
for (let j = 0; j < 6; j++) choices.push(await V.face(b, j, 6, P));
eq(choices.join(" "), want["bot d6"], "bot choices");

eq(hex(await V.H(P, "receipt", inputs.game, 1, "alice", 2, inputs.step2.alice)), want.R_alice, "receipt alice");
eq(hex(await V.H(P, "receipt", inputs.game, 1, "bob", 1, "")), want.R_bob, "receipt bob");

const a0 = await V.stepHashStart(inputs.game, links[0], terms, salt);
eq(hex(a0), want.A_0, "A_0");
const a1 = await V.stepHashNext(a0, 1, V.fromHex(inputs.c1));
eq(hex(a1), want.A_1, "A_1");
eq(hex(await V.stepHashNext(a1, 2, V.fromHex(inputs.c2))), want.A_2, "A_2");
console.log("ok " + checked);
