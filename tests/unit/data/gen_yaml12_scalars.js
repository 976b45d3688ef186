// Regenerates yaml12_scalars.json: what yaml@2.8.1 `parse()` (default options: YAML 1.2 core
// schema) makes of plain scalars, and how Node prints numbers and strings with JSON.stringify.
// Not run by the tests; the JSON it prints is committed.
//
//   mkdir /tmp/mm && cd /tmp/mm && npm init -y && npm i yaml@2.8.1
//   node gen_yaml12_scalars.js > yaml12_scalars.json
//
// Output:
//   schema:  the core schema's scalar tags as the library reports them (tag, format, test regex)
//   plains:  [text, kind, printed] for texts that yaml reads as a PLAIN scalar both as a block
//            mapping value and as a flow sequence item (both must agree). kind: "null", "bool",
//            "number", "string"; printed: String(value) ("-0" for negative zero) for numbers,
//            the value for booleans, nothing for null and strings (a string is the text itself).
//   numbers: [IEEE-754 bits as 16 hex digits, String(n), JSON.stringify(n)]
//   strings: [string, JSON.stringify(string)] (lone surrogates travel as JSON \u escapes)
//   values:  [encoded value, indent, JSON.stringify(value, null, indent)]; the value encoding keeps
//            JavaScript insertion order: {"o": [[key, v], ...]} object, [..] array,
//            {"n": bits} number, plain JSON for strings, booleans and null.
"use strict";
const YAML = require("yaml");

// -- the schema the library uses for parse() ---------------------------------------------------
const schema = new YAML.Schema({});
const schemaRows = schema.tags
  .filter((t) => t.test)
  .map((t) => [t.tag, t.format || "", t.test.source]);

// -- plain scalars ------------------------------------------------------------------------------
const handPicked = [
  "", "~", "null", "Null", "NULL", "nULL", "nuLL", "~~", "null ", "true", "True", "TRUE", "tRUE", "tRue",
  "false", "False", "FALSE", "fALSE", "yes", "no", "on", "off", "y", "n", "Y", "N", "Yes", "YES", "On",
  "OFF", "2025-01-01", "2025-01-01T10:00:00Z", "2001-12-14t21:59:43.10-05:00", "12:30", "1:20", "1:20:30",
  "190:20:30", "0", "-0", "+0", "00", "-00", "1", "001", "-001", "+001", "+12", "-12", "0o17", "0o8",
  "0O17", "-0o17", "+0o17", "0o", "017", "08", "09", "0x1F", "0x1f", "0X1F", "-0x1F", "+0x1F", "0x",
  "0xg", "0b101", "0B101", "1_000", "1,000", "1 000", "1.5", "-1.5", "+1.5", ".5", "-.5", "+.5", "5.",
  "-5.", "+5.", "0.", ".0", "-.0", "1e3", "1E3", "1e+3", "1e-3", "1.5e+3", ".5e3", "5.e3", "-1e3",
  "+1e3", "1e", "e3", "1e3.5", "1.5.5", "1..2", "0.1.2", "1e03", "1e-07", "1.0", "1.50", "100.0",
  "-0.0", "0.0", "1e21", "1e20", "1e22", "123456789012345678901234", "0.000001", "0.0000001", "1e-7",
  "3.14159", "6.02e23", "1e308", "1e309", "-1e309", "2e-324", "5e-324", "4.9e-324", "1.7976931348623157e308",
  "1.7976931348623159e308", ".inf", ".Inf", ".INF", ".iNF", "-.inf", "+.inf", "-.Inf", "+.INF", ".nan",
  ".NaN", ".NAN", ".nAn", "-.nan", "+.nan", "inf", "Inf", "-inf", "nan", "NaN", "Infinity", "-Infinity",
  "12345678901234567890", "9007199254740991", "9007199254740992", "9007199254740993", "-9007199254740993",
  "9007199254740994", "9007199254740995", "18014398509481985", "0x1fffffffffffff", "0x20000000000001",
  "0x20000000000003", "0o400000000000000001", "0xffffffffffffffffffff", "1" + "0".repeat(30),
  "1" + "0".repeat(400), "9".repeat(309), "0." + "0".repeat(400) + "1", "abc", "a b", "1 2", "-", "--",
  "+", ".", "..", "...", "+-1", "-+1", "1-", "1+", "0x-1", "0o-1", "1e3e3", "1.e3", "1.5E", "1.5e+",
  "0x1.8", "١٢٣", "１２３", "1\u00a0", "Ⅻ", "½", "1d", "1f", "1L", "1n", "0n", "-", "$1", "1$",
  "1%", "1.5.", "1e1_0", "1__0", "0e0", "-0e0", "0e-0", "0.0e0", "00.5", "-00.5", "00e1",
];

// Generated numeric-looking texts: every combination of a sign, a body and an exponent.
const signs = ["", "-", "+"];
const bodies = ["0", "1", "01", "10", "007", "1.", "1.0", ".1", "0.5", "12.50", ".", "", "0x1A", "0o17",
  "0b1", ".inf", ".nan", ".Inf", ".NaN", "inf", "1_0", "1.2.3", "x", "e"];
const exponents = ["", "e1", "E1", "e+1", "e-1", "e", "e+", "e01", "E-05"];
const generated = [];
for (const s of signs) for (const b of bodies) for (const e of exponents) generated.push(s + b + e);

function classify(value) {
  if (value === null) return ["null"];
  if (typeof value === "boolean") return ["bool", value];
  if (typeof value === "number") return ["number", Object.is(value, -0) ? "-0" : String(value)];
  if (typeof value === "string") return ["string"];
  throw new Error("unexpected " + typeof value);
}

const plains = [];
const seenPlain = new Set();
for (const text of [...handPicked, ...generated]) {
  if (seenPlain.has(text)) continue;
  seenPlain.add(text);
  const doc = YAML.parseDocument("v: " + text + "\n");
  const flow = YAML.parseDocument("[" + text + "]\n");
  if (text === "") {
    // an empty value is an empty plain scalar
    plains.push([text, ...classify(doc.toJS().v)]);
    continue;
  }
  if (doc.errors.length || flow.errors.length) continue;
  const blockNode = doc.contents.items[0].value;
  const flowNode = flow.contents.items[0];
  if (!blockNode || blockNode.type !== "PLAIN" || blockNode.source !== text) continue;
  if (!flowNode || flowNode.type !== "PLAIN" || flowNode.source !== text) continue;
  const a = classify(doc.toJS().v);
  const b = classify(flow.toJS()[0]);
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error("contexts disagree on " + text);
  plains.push([text, ...a]);
}

// -- number printing ----------------------------------------------------------------------------
let seed = 12345;
function rnd32() {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed;
}
function bits(n) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, n);
  let hex = "";
  for (let i = 0; i < 8; i++) hex += view.getUint8(i).toString(16).padStart(2, "0");
  return hex;
}
function fromBits(hi, lo) {
  const view = new DataView(new ArrayBuffer(8));
  view.setUint32(0, hi);
  view.setUint32(4, lo);
  return view.getFloat64(0);
}
const numbers = [0, -0, 1, -1, 0.1, 0.2, 0.3, 0.1 + 0.2, 0.5, 1.5, 100, 1e20, 1e21, 1.5e21, 123e18, 1e-6,
  1e-7, 1.5e-7, 0.000001234, 123456789.123, 12345678901234567890, 9007199254740993, 2 ** 53, 2 ** 60,
  2 ** 64, 2 ** 70, 1 / 3, 2 / 3, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 123e-20,
  1e100, -1e-100, 4.35, 1e22, 1e23, 9.999999999999999e22, 0.1 * 3, 100 / 3, 1234567.0, 1e15, 1e16, 1e17,
  123456789012345680000, 1.2345678901234567e21, Math.PI, Math.E, NaN, Infinity, -Infinity];
for (let i = 0; i < 20; i++) numbers.push(10 ** i, 10 ** -i, 2 ** i + 0.5, -(10 ** (i + 1)) / 7);
for (let i = 0; i < 3000; i++) {
  const n = fromBits(rnd32(), rnd32());
  numbers.push(n);
}
for (let i = 0; i < 1500; i++) {
  // ordinary magnitudes, where the fixed/exponent switch happens
  const exp = (rnd32() % 60) - 30;
  numbers.push(((rnd32() % 1000000) / 1000) * 10 ** exp);
  numbers.push(Math.round(rnd32() * 2 ** ((rnd32() % 40))));
}
const numberRows = numbers.map((n) => [bits(n), String(n), JSON.stringify(n)]);

// -- string escaping ----------------------------------------------------------------------------
const strings = ["", "a\"b\\c", "\b\f\n\r\t", "\u0000\u0001\u001f\u007f\u0080\u009f", "\u2028\u2029",
  "é😀", "\ud800", "\udfff", "x\udfffy", "\ud83d", "\ude00\ud83d", "\ud83d\ude00\ud83d", "\ufeff\ufffe\uffff",
  "/", "</script>", "'", "\u00ad\u200b", "\u0085", "\\u0041", "tab\there"];
for (let c = 0; c < 0x80; c++) strings.push(String.fromCharCode(c));
for (const c of [0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd]) strings.push("a" + String.fromCharCode(c) + "b");
for (let i = 0; i < 300; i++) {
  let s = "";
  const len = rnd32() % 6;
  for (let j = 0; j < len; j++) {
    const pool = [rnd32() % 0x80, 0xd800 + (rnd32() % 0x800), rnd32() % 0x10000, 0x2028 + (rnd32() % 2)];
    s += String.fromCharCode(pool[rnd32() % pool.length]);
  }
  strings.push(s);
}
const stringRows = strings.map((s) => [s, JSON.stringify(s)]);

// -- whole values, indented or not -------------------------------------------------------------
function build(enc) {
  if (enc === null || typeof enc !== "object") return enc;
  if (Array.isArray(enc)) return enc.map(build);
  if ("n" in enc) {
    const h = enc.n;
    return fromBits(parseInt(h.slice(0, 8), 16), parseInt(h.slice(8), 16));
  }
  const obj = {};
  for (const [k, v] of enc.o) obj[k] = build(v);
  return obj;
}
const num = (n) => ({ n: bits(n) });
const values = [
  { o: [] }, [], { o: [["a", num(1)]] }, [num(1)], [[]], [{ o: [] }], "x", num(1.5), true, null,
  { o: [["a", num(1)], ["b", [num(1), { o: [["c", []]] }, { o: [] }]], ["d", "x"]] },
  { o: [["b", num(1)], ["2", num(2)], ["1", num(3)], ["a", num(4)], ["-1", num(5)], ["01", num(6)],
    ["4294967294", num(7)], ["4294967295", num(8)], ["1.5", num(9)], ["10", num(10)], ["", num(11)]] },
  [num(NaN), num(Infinity), num(-Infinity), num(-0), num(1e21), num(1e-7)],
  { o: [["nested", { o: [["deeper", [[num(1), num(2)], { o: [["x", null]] }]]] }], ["empty", []]] },
  { o: [["\u2028key\ud800", "v\u0000"]] },
];
const valueRows = [];
for (const v of values) for (const indent of [null, 0, 1, 2, 4, 10, 12, -1]) {
  valueRows.push([v, indent, JSON.stringify(build(v), null, indent)]);
}

console.log(
  JSON.stringify({
    versions: { yaml: require("yaml/package.json").version, node: process.version },
    schema: schemaRows,
    plains,
    numbers: numberRows,
    strings: stringRows,
    values: valueRows,
  }),
);
