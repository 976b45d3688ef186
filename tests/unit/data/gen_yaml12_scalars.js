// Regenerates yaml12_scalars.json: how yaml@2.8.1 parse() reads plain scalars, and how
// JavaScript prints numbers. Run with yaml@2.8.1 installed: node gen_yaml12_scalars.js > yaml12_scalars.json
const { parse } = require("yaml");
const plains = [
  "", "~", "null", "Null", "NULL", "nULL", "true", "True", "TRUE", "tRUE", "false", "False", "FALSE",
  "yes", "no", "on", "off", "y", "n", "Yes", "YES", "2025-01-01", "2025-01-01T10:00:00Z", "12:30", "1:20:30",
  "0", "-0", "+0", "1", "001", "-001", "+12", "0o17", "0o8", "0O17", "017", "0x1F", "0X1F", "0x", "0b101",
  "1_000", "1,000", "1.5", "-1.5", "+1.5", ".5", "-.5", "+.5", "5.", "1e3", "1E3", "1e-3", "1.5e+3", ".5e3",
  "1e", "e3", ".inf", ".Inf", ".INF", "-.inf", "+.inf", ".nan", ".NaN", ".NAN", "inf", "nan", "Infinity",
  "NaN", "12345678901234567890", "9007199254740993", "-9007199254740993", "9007199254740992", "0x1fffffffffffff",
  "0x20000000000001", "1.0", "100.0", "1e21", "1e20", "123456789012345678901234", "0.000001", "0.0000001",
  "3.14159", "abc", "a b", "1 2", "-", "--", "+", ".", "..", "1..2", "0.1.2", "1e3.5", "0xg", "0o", "+-1",
];
const numbers = [0, -0, 1, -1, 0.1, 0.5, 1.5, 100, 1e20, 1e21, 1.5e21, 1e-6, 1e-7, 1.5e-7, 123456789.123,
  12345678901234567890, 9007199254740993, 2 ** 53, 2 ** 64, 1 / 3, 2 / 3, 5e-324, 1.7976931348623157e308,
  0.000001234, 123e-20, 1e100, -1e-100, 4.35, 0.1 + 0.2];
const out = { plains: plains.map((p) => { try { return [p, parse("v: " + p + "\n")]; } catch (e) { return [p, "ERROR"]; } }),
  numbers: numbers.map((n) => [n.toString(), String(n), JSON.stringify(n)]),
  strings: ["a\"b\\c", "\b\f\n\r\t", "\u0000\u001f\u007f", "\u2028\u2029", "é😀", "\ud800", "x\udfffy"].map((s) => [s.split("").map((c) => c.charCodeAt(0)), JSON.stringify(s)]),
  indented: JSON.stringify({ a: 1, b: [1, { c: [] }, {}], d: "x" }, null, 2) };
console.log(JSON.stringify(out));
