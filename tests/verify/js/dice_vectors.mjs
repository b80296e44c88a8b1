// Every test vector of docs/dice-spec.md, checked in the verifier page's JavaScript.
// Usage: node dice_vectors.mjs path/to/verifier.html  (exit 0 and "ok N" when all hold)
import assert from "node:assert/strict";
import { loadCore } from "./core.mjs";

const V = loadCore(process.argv[2]);
const hex = V.toHex;
const bytes = V.fromHex;
let checked = 0;
const eq = (a, b, what) => { assert.equal(a, b, what); checked++; };

eq(hex(V.enc("ab", 1)), "000000026162000000080000000000000001", "enc");

const links = [bytes("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")];
for (let i = 0; i < 4; i++) links.unshift(await V.chainLink(links[0]));
const [s0, s1, s2, s3] = links.map(hex);
eq(s3, "6454c6336e8e6bcfbdbaea42f6e87c2a4025cc2fe1913061d812b56a3c598f41", "S_3");
eq(s2, "227ef3799fd4d94ad2e4ed4c6dfc13e885507c0dc2e1f0c05489467f7ff8d743", "S_2");
eq(s1, "c8065188fa991c5e95451a77e47636542a4c638233a96c252c8bf3d8c468fddb", "S_1");
eq(s0, "5e2370dfbd97933de2834a5d0d689f5346c08a3287ff6cf7dbc10ed7d89132d5", "S_0");

const salt = await V.gameSalt("g-7f3a", { bob: new Uint8Array(16).fill(0xb0), alice: new Uint8Array(16).fill(0xa1) });
eq(hex(salt), "49544ca718f7f6fc79209a6898e6f76e918673f064159f3deab05d123757014a", "G");

const step1 = { ruleset: "universal", width: 8, height: 8 };
eq(hex(await V.inputsDigest(step1)), "1c670bbd2337166293ef969b7e530d114db484ead4cefa5445bcf5ffbc40e85c", "D_1");
const k1 = await V.stepKey(links[1], salt, 1, step1);
eq(hex(k1), "db4278561aa2ef35a1ad89f9878f55eff1812d7b867024730f78e5faf70cd39d", "K_1");
const faces1 = [];
for (let j = 0; j < 10; j++) faces1.push(await V.face(k1, j, 6));
eq(faces1.join(" "), "5 6 5 1 1 1 4 3 4 2", "step 1 d6");

const step2 = { alice: "A1 move c3\nA1 attack B2", bob: "" };
eq(hex(await V.inputsDigest(step2)), "4448abab1b1eb30850daa10734ff795f120fc3360aeb82deca9cc2180d91a21f", "D_2");
const k2 = await V.stepKey(links[2], salt, 2, step2);
eq(hex(k2), "83b2390af1efcbd098f597d3f28217d398dc3d0f2d79f9fd48860874fabc61ff", "K_2");
const faces2 = [];
for (let j = 0; j < 5; j++) faces2.push(await V.face(k2, j, 20));
eq(faces2.join(" "), "7 17 14 15 2", "step 2 d20");
eq(await V.face(k2, 5, 6), 3, "step 2 j=5 d6");
const [big, read] = await V.faceAndWords(k2, 0, 2 ** 31 + 1);
eq(big, 568002283, "d(2^31+1) face");
eq(read, 3, "d(2^31+1) words read");

console.log("ok " + checked);
