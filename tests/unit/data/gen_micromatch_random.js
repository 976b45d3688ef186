// Regenerates micromatch_random.json: seeded random patterns and paths, micromatch@4.0.8.
const micromatch = require("micromatch");
let seed = 42;
const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
const pick = (a) => a[rnd(a.length)];
const patSegs = ["**", "*", "docs", "prompts", "*.md", "*.instructions.md", "a?", "[ab]*", ".github", ".*", "x*y", "{a,b}", "@(a|b)", "!(x)", "?.md", "*.{md,txt}", "file{1..3}.md", ".hidden", "..", "."];
const subSegs = ["docs", "prompts", "a", "b", "x", "ab", "xy", "a.md", "b.md", "x.instructions.md", ".github", ".hidden", ".a.md", "..", ".", "file2.md", "a.txt", "c.md", "SKILL.md"];
const rows = [];
for (let i = 0; i < 3000; i++) {
  const pat = Array.from({ length: 1 + rnd(3) }, () => pick(patSegs)).join("/");
  let sub = Array.from({ length: 1 + rnd(4) }, () => pick(subSegs)).join("/");
  if (rnd(8) === 0) sub = "/" + sub;
  if (rnd(8) === 0) sub = "./" + sub;
  let r; try { r = micromatch.isMatch(sub, [pat]); } catch (e) { r = "ERROR"; }
  rows.push([[pat], sub, r]);
}
console.log(JSON.stringify(rows));
