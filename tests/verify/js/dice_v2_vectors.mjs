// Every dicepost-dice/v2 test vector of docs/dice-spec.md, in the verifier page's JavaScript.
// Usage: node dice_v2_vectors.mjs path/to/verifier.html  (exit 0 and "ok N" when all hold)
import assert from "node:assert/strict";
import { loadCore } from "./core.mjs";

const V = loadCore(process.argv[2]);
const P = "dicepost-dice/v2";
assert.ok(V.PROFILES.includes(P));
const hex = V.toHex;
let checked = 0;
const eq = (a, b, what) => { assert.equal(a, b, what); checked++; };

const links = [V.fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")];
for (let i = 0; i < 4; i++) links.unshift(await V.chainLink(links[0], P));
eq(hex(links[0]), "14a5a669302772c4d3f6f4c6981865b252f035f62755896d894915f88bf1d3d3", "S_0");
eq(hex(links[1]), "a2a500b1f13e3b86924fa52dea5482360732f3924795b487b5e8aae812bef719", "S_1");
eq(hex(links[2]), "6138016942f63f3733697e521ad1d6df3dca140e95f753a36e4e17df0e043069", "S_2");

const bob = await V.H(P, "server-made", links[0], "g-7f3a", "bob");
eq(hex(bob), "d50d22c93ec48c6975553fe8fbbe5135bf92bee200ba9dcb2cdf81c2a0084531", "server-made E_bob");
const salt = await V.gameSalt("g-7f3a", { alice: new Uint8Array(16).fill(0xa1), bob }, P);
eq(hex(salt), "f75b60aba6f72465a8c7a78c454d7599947cca268cf6bbfd243feca68f100ae7", "G");

const step1 = { ruleset: "universal", width: 8, height: 8 };
eq(hex(await V.inputsDigest(step1, P)), "1b28de80a3fde52f947d5f06f75e43ad68480c140d190f31468a7f8a7e6399e5", "D_1");
const k1 = await V.stepKey(links[1], salt, 1, step1, P);
eq(hex(k1), "ef7387c2700d3df7edf6ba171563c987920d42292e8b89e3ed379122078135aa", "K_1");
const faces1 = [];
for (let j = 0; j < 10; j++) faces1.push(await V.face(k1, j, 6, P));
eq(faces1.join(" "), "1 2 6 1 6 6 2 3 1 5", "step 1 d6");

const step2 = { alice: "A1 move c3\nA1 attack B2", bob: "" };
eq(hex(await V.inputsDigest(step2, P)), "871137dcc631c43ccfff6528c79a2bec5929a7506ce2ec064508755b9d8ec4cc", "D_2");
const k2 = await V.stepKey(links[2], salt, 2, step2, P);
eq(hex(k2), "8569087e7507b975c74a4fc71c5e73c5f28238629b47ed0edd7ac1210e9c4cd6", "K_2");
const faces2 = [];
for (let j = 0; j < 5; j++) faces2.push(await V.face(k2, j, 20, P));
eq(faces2.join(" "), "15 6 20 2 5", "step 2 d20");

const b = await V.M(links[2], P, "bot", salt, 2, "bob");
eq(hex(b), "1ffa7b1fbd1d3289324d29a1e68a7e2f5040170adcc1691d55740d165d397240", "bot key");
const choices = [];
for (let j = 0; j < 6; j++) choices.push(await V.face(b, j, 6, P));
eq(choices.join(" "), "5 4 3 6 3 6", "bot choices");

eq(hex(await V.H(P, "receipt", "g-7f3a", 1, "alice", 2, step2.alice)),
  "498c4b330dcf6b9be4303820c51acda680df8fdc9f1cefe002b15c30c81d76cc", "receipt alice v2");
eq(hex(await V.H(P, "receipt", "g-7f3a", 1, "bob", 1, "")),
  "326b0fb83c3ab7e842949fb15be3c0cd6d389daf13253dacd08979ba9a6515df", "receipt bob v1");
console.log("ok " + checked);
