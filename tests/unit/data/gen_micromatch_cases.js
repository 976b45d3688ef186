// Regenerates micromatch_cases.json: what micromatch@4.0.8 (with picomatch@2.3.1) returns for
// `micromatch.isMatch(subject, patterns)` with NO options, which is how AgentV decides whether a
// file is a guideline. Not run by the tests; the JSON it prints is committed.
//
//   mkdir /tmp/mm && cd /tmp/mm && npm init -y && npm i micromatch@4.0.8 picomatch@2.3.1
//   node gen_micromatch_cases.js > micromatch_cases.json
//
// Output (compact, so that tens of thousands of results stay well under 1 MB):
//   grid:   every hand-picked pattern against every hand-picked subject; each row is
//           [pattern, results] where results has one character per subject:
//           "1" match, "0" no match, "E" micromatch threw.
//   lists:  [patterns, subject, result] for multi-pattern lists (any-of, "!" entries, []).
//   random: [pattern, [[subject, 0|1|"E"], ...]] for seeded random patterns, each tried on
//           subjects built to match it plus random ones.
//   hangs:  [pattern, hangs?] for patterns on which micromatch may never return (see below).
"use strict";
const micromatch = require("micromatch");

function outcome(subject, patterns) {
  try {
    return micromatch.isMatch(subject, patterns) ? 1 : 0;
  } catch (e) {
    return "E";
  }
}

// ---------------------------------------------------------------------------------------------
// hand-picked patterns: the AgentV reference table, then one group per quirk
const patterns = [
  // reference table (agentv-v2.md section 2) and typical guideline patterns
  "**/*.instructions.md", "*.instructions.md", "**/prompts/**", "prompts/**", "**/SKILL.md", "docs/AGENTS.md",
  "**/*.rules.md", "**/guidelines/**/*.md", "**/*.md", "*.md", "src/**/test/*.py", "**/x/**/y.md",
  // negation
  "!docs/**", "!*.md", "!**/*.md", "!a", "!!a", "!!!a", "!", "!*", "!**", "!.*", "!./a", "\\!a", "!(a).md",
  "!(a)", "!(a|b)", "!(*.md)", "!(.*)", "a/!(b)", "!(a)/b", "*.!(md)", ".!(a)", "**/!(*.py)", "!(a)*",
  "!(a|b)|c", "@(a|!(b))", "!(!(a))", "!(a)/**",
  // dots and hidden segments
  ".github/**", "**/.github/**", "**/.hidden/*.md", "**/.*", "**/.*/**", ".*", ".*.md", ".a", ".a/*", "a/.b",
  ".", "..", "./", "./a", "./**", "./docs/*.md", "../x/*.md", "../**", "../*", "**/..", "**/../*", "**/.",
  "*/..", "a/../b", "a/./b", ".?", ".[a]", ".**", "..*", ".*/**", "*/.*", "**/.*.md", "**/.a/**",
  // stars and globstars
  "*", "**", "***", "****", "**/*", "**/**", "**/**/*.md", "***/*.md", "a/**", "a/**/", "**/a", "**.md",
  "a**b/c", "a**", "**a", "a*", "*a", "*a*", "a*b", "**/a*", "a/**/b", "a/*/b", "a/**/b/**/c", "**/", "*/",
  "a/*/", "**/*/", "a/**/*", "**/a/**", "*/*", "*.*", "**/*.*", "*.", "**.", "*.md.*", "*.mdx", "*.a.b",
  "a/**b", "a/b**", "**b/**", "/**", "/*", "/abs/**", "/**/*.md", "/prompts/*.md", "**/*.instructions.md/",
  "docs/", "docs", "prompts", "**/prompts", "*/a.md", "a//b", "a///", "//", "/", "a/", "a/b/", "**//a",
  // question marks
  "?", "??", "?.md", "**/a?.md", "a?", "?/?", "a/?", "*.?", "*.md?", "?*", "*?", "?a*",
  // brackets
  "[ab]", "**/[ab].md", "**/[!a].md", "[!a]", "[^a]", "[a-c]", "**/[a-c]*.md", "**/*[0-9].md", "[[:alpha:]]",
  "**/[[:alpha:]]*.md", "[[:digit:]]", "[[:alpha:][:digit:]]", "[[:alnum:]]", "[[:upper:]]*", "[[:lower:]]",
  "[[:space:]]", "[[:punct:]]", "[[:word:]]", "[[:xdigit:]]", "[[:foo:]]", "[]]", "[]a]", "[!]]", "[a-]",
  "[-a]", "[a\\]b]", "[a/b]", "x/[a", "[", "[a-", "a[b", "a]b", "[.]a", "[.]*", "*.[ab]", "[*]", "[?]",
  "[\\*]", "[a-z]*.md", "[!.]*", "[a", "a[", "[[]", "[\\]]", "[b-a]", "[^]]", "[z-a]", "[!a-c]/*",
  // braces and ranges
  "**/*.{md,txt}", "{a,b}", "**/{a,b}/*.md", "{docs,src}/**", "**/file{1..3}.md", "{1..3}", "{1..10}",
  "{01..03}", "{a..c}", "{c..a}", "{3..1}", "{1..3..2}", "{a,}", "{,a}", "{}", "{a}", "a{,b}c", "{a,{b,c}}",
  "{", "a{b", "a}b", "a{b}c", "a{b,c", "{a,b}/**", "**/*.{a,b}", "*.{a,b}", "{*.md,*.txt}", "{**/a,b}",
  "{.a,b}", "{a,.b}/*", "a/{b|c}", "{a|b}", "{a,b|c}", "{a/b,c}", "{!a,b}", "**/*.instructions.md,**/*.md",
  "{a,b}{c,d}", "{a..c}.md", "{-1..1}", "{a,b,c}",
  // extglobs
  "**/*.@(md|txt)", "@(a|b)", "@(a|b)/**", "**/+(a|b).md", "+(a)", "*(a)", "?(a)", "@(a)", "**/*(a).md",
  "**/?(a)b.md", "*(a|b)c", "@(a/b)", "@(a|b|)", "+(a|b)", "?(a|b).md", "@(*.md|*.txt)", "*.@(md)",
  "@(.a|b)", "@(a)*", "*@(a)", "a@(b)c", "@(a|b)@(c|d)", "+(a|b)/*", "@(", "@(a", "!(", "+(a|b", "a)",
  "(a|b)", "(a)", "a(b)c", "**/a(b.md", "(", ")", "a)b", "*(", "?(", "@()", "!()",
  // escapes, quotes and regex-special characters
  "**/\\*.md", "a\\*b", "\\*", "\\?", "\\[a]", "\\{a,b}", "a\\/b", "a\\", "\\", "\\a", "a\\.b", "\\.a",
  "\"a\"", "a\"b/*", "\"*\"", "a|b", "a/b|c", "*|a", "x/*|a", "**/a|b", "**/*.instructions.md|x", "a^b",
  "a$b", "#a", "a+b", "a,b", "a.b", "a..b", "a b", "é/*.md", "*.MD", "**/*.MD", "A.md", "a=b", "a%b",
  "a&b", "a;b", "a'b", "~/a", "a~", "@a", "+a", "a@", "a+", "a!", "a!b", "a?b", "**/a!b",
  // regex oddities: a stray ')' or '|' ends picomatch's wrapper early (the rest is searched for
  // anywhere in the subject), backreferences, JavaScript escapes, NUL, newlines, astral characters
  "a)|(b", "))}/!./:x|@(", "x|@(", "a)|b", "(a)\\1", "\\k<n>(?<n>a)", "(?<n>a)\\k<n>", "a\u0000b", "\u0000",
  "a\\1", "[\\d]", "\\d", "\\w*", "\\s", "a\nb", "*\n", "😀", "?.md", "*😀*", "??", "[😀]", "\u2028*",
  "a\\\\\\", "\\\\\\\\", "a/\\\\\\", "[]:[:alpha:]", "[[:alpha:]", "[[:alpha:]]]",
  // the empty pattern (micromatch throws)
  "",
];

// hand-picked subjects
const subjects = [
  "a.instructions.md", "docs/a.instructions.md", "/abs/x/a.instructions.md", "../../prompts/python.instructions.md",
  "../x/a.instructions.md", "./a.instructions.md", ".github/instructions/a.instructions.md",
  "docs/.hidden/a.instructions.md", "A.INSTRUCTIONS.MD", "prompts/x.md", "/prompts/x.md", "x/prompts/y/z.md",
  "docs/a.md", "docs/AGENTS.md", "a/AGENTS.md", "x/SKILL.md", "SKILL.md", "a/b/c/rules/x.rules.md",
  "guidelines/a/b.md", "x/guidelines/b.md", "x/guidelines/a/b.md", "src/a/test/b.py", "src/test/b.py",
  "a.md", "ab.md", "b.md", "c.md", "a.txt", "a.py", "prompts", "x/prompts", "prompts/", "docs/", "docs",
  "a/b", "a/x/b", "a/x/y/b", "a/b/c", "a/x/b/y/c", "a", "b", "c", "d", "ab", "abc", "ac", "bd", "aab",
  "a/", "a//b", "//", "/", "/a", "/a/b", "a/b/", ".a.md", "x/.a.md", ".hidden/a.md", "x/.hidden/a.md",
  ".a", ".a/b", "a/.b", ".github", ".github/a", "file2.md", "x/file2.md", "x/file4.md", "*.md", "x/*.md",
  "a.MD", "x/y.md", "x/a/y.md", "x/a/b/y.md", "a/b.md", "b/a.md", "c/a.md", "abc.md", "a1.md", "x/a9.md",
  "b.instructions.md", "../a.md", "..", ".", "../", "./", "./a", "./a/b", "../a", "../../a", "a/..", "a/.",
  "a/../b", "a/./b", "docs/..", "docs/../a.md", "docs/./a.md", "x//a.md", "a\\b.md", "docs\\a.md", "é/ü.md",
  "é/a.md", "a b/c d.md", "a b", "1", "2", "10", "0", "01", "1.md", "-1", "a-b", "a.b", "a..b", "a.", ".md",
  "[ab]", "[a]", "a]", "]", "a]b", "[", "a[b", "[a-", "x/[a", "{a,b}", "{a}", "a{b", "a}b", "a{b}c", "{",
  "}", "(a|b)", "(a)", "a(b)c", "a(b.md", "x/a(b.md", "(", ")", "a)b", "*", "**", "?", "a*b", "a?b", "\\",
  "a\\", "\\a", "!a", "!", "!!a", "a!b", "x/a!b", "#a", "a|b", "a/b|c", "c}", "a/{", "a^b", "a$b", "a+b",
  "a,b", "\"a\"", "a\"b/c", "a=b", "~/a", "a~", "@a", "+a", "a@", "a+", "a!", "A", "A.md", "ac.md", "aa",
  "aaa", "abab", "ba", "bc", "cd", "a/b/c/d", "a.b.c", "a.md.txt", "a.mdx", "x.md.y", "", " ", "a/b.txt",
  "a/a", "b/b", "b/c", "a.a", "a.b/c", "docs/src/a.md", "a\nb", "a\n", "\n", "a\rb", "\u2028", "a\u2028b",
  "😀", "a😀b", "😀/a.md", "x/😀.md", "\u0000", "a\u0000b", "a\\1", "aa1", "\\d", "d", "5", "a b/c",
  "xa|b", "a/b/c|x", "zz)|(bzz", "x(b", "a|@(", "a)", "(b",
];

const rows = [];
const seen = new Set();
for (const p of patterns) {
  if (seen.has(p)) continue;
  seen.add(p);
  rows.push([p, subjects.map((s) => String(outcome(s, [p]))).join("")]);
}

// lists: any-of semantics, negations that do not subtract, the empty list, throwing entries
const lists = [
  ["**/*.md", "!docs/**"], ["!docs/**", "**/*.md"], [], ["**/*.instructions.md", "**/prompts/**/*.md"],
  ["*.md", "**/SKILL.md"], ["!a", "!b"], ["!**", "**"], ["a", ""], ["", "a"], ["**/*.md", "**/*.md"],
  ["{", "**"], ["[", "a"], [".*", "!.*"], ["!(a)", "a"],
];
const listRows = [];
for (const l of lists) for (const s of subjects) listRows.push([l, s, outcome(s, l)]);

// ---------------------------------------------------------------------------------------------
// seeded random patterns (a glob grammar) and subjects
let seed = 20250101;
function rnd(n) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
}
const pick = (a) => a[rnd(a.length)];
const chars = ["a", "b", "c", ".", "-", "x", "1", "2"];
const atoms = () => {
  switch (rnd(22)) {
    case 0: case 1: case 2: case 3: return pick(chars);
    case 4: case 5: return "*";
    case 6: return "**";
    case 7: return "?";
    case 8: return pick(["[ab]", "[!a]", "[^b]", "[a-c]", "[[:alpha:]]", "[[:digit:]]", "[.a]", "[]a]", "[a"]);
    case 9: return pick(["{a,b}", "{1..3}", "{a,{b,c}}", "{a,}", "{,b}", "{a..c}", "{a,b.c}", "{.a,b}", "{a"]);
    case 10: return pick(["@(", "!(", "+(", "*(", "?("]) + pick(["a", "a|b", "b|c.", "*", "a*", ".a", "a|"]) + ")";
    case 11: return pick(["\\*", "\\.", "\\a", "\\?", "\\[", "\\{"]);
    case 12: return "md";
    case 13: return ".md";
    case 14: return pick(["(", ")", "|", "\"", "+", "@", "!", "]", "}"]);
    default: return pick(chars) + pick(chars);
  }
};
function randomSegment() {
  const r = rnd(10);
  if (r === 0) return "**";
  if (r === 1) return pick([".", "..", "", ".*", ".a"]);
  let s = "";
  const n = 1 + rnd(3);
  for (let i = 0; i < n; i++) s += atoms();
  return s;
}
function randomPattern() {
  const n = 1 + rnd(4);
  const segs = [];
  for (let i = 0; i < n; i++) segs.push(randomSegment());
  let p = segs.join("/");
  switch (rnd(14)) {
    case 0: p = "!" + p; break;
    case 1: p = "./" + p; break;
    case 2: p = "/" + p; break;
    case 3: p = p + "/"; break;
    default:
  }
  return p || "a";
}
const subjectSegs = ["a", "b", "c", "ab", "ba", "abc", "a.md", "b.md", ".a", ".md", "..", ".", "x", "x.y", "1",
  "2", "a-b", "a.b", "c.", "-", "aa", "a1", "md", "*", "(a)", "[a]", "a|b", "{a}", "\\a", "\"", "!a"];
function randomSubject() {
  const n = 1 + rnd(4);
  const segs = [];
  for (let i = 0; i < n; i++) segs.push(pick(subjectSegs));
  let s = segs.join("/");
  if (rnd(10) === 0) s = "/" + s;
  if (rnd(10) === 0) s = "./" + s;
  if (rnd(14) === 0) s = s + "/";
  return s;
}
// A subject built from the pattern itself, so that many random rows are matches: every glob
// construct is replaced by something it might match.
function instantiate(p) {
  let out = "";
  let i = 0;
  if (p[0] === "!" && p[1] !== "(") i = 1;
  while (i < p.length) {
    const c = p[i];
    if (c === "*" && p[i + 1] === "*") {
      out += pick(["", "a", "a/b", "x", ".a", ".."]);
      i += 2;
    } else if (c === "*" && p[i + 1] !== "(") {
      out += pick(["", "a", "b.c", "ab", ".x"]);
      i += 1;
    } else if (c === "?" && p[i + 1] !== "(") {
      out += pick(["a", "b", ".", "1"]);
      i += 1;
    } else if (c === "[") {
      const j = p.indexOf("]", i + 2);
      if (j === -1) { out += c; i += 1; } else { out += pick(["a", "b", "c", "1", "."]); i = j + 1; }
    } else if (c === "{") {
      const j = p.indexOf("}", i);
      if (j === -1) { out += c; i += 1; } else {
        const opts = p.slice(i + 1, j).split(/,|\.\./);
        out += pick(opts).replace(/[{}]/g, "");
        i = j + 1;
      }
    } else if ("@!+*?".includes(c) && p[i + 1] === "(") {
      const j = p.indexOf(")", i);
      if (j === -1) { out += c; i += 1; } else {
        const opts = p.slice(i + 2, j).split("|");
        out += c === "+" ? pick(opts) + pick(opts) : c === "!" ? pick(["x", "zz", ""]) : pick(opts);
        i = j + 1;
      }
    } else if (c === "\\" && i + 1 < p.length) {
      out += p[i + 1];
      i += 2;
    } else {
      out += c;
      i += 1;
    }
  }
  return out.replace(/\*/g, "a");
}

const randomRows = [];
const randomSeen = new Set(seen);
while (randomRows.length < 5000) {
  const p = randomPattern();
  if (randomSeen.has(p)) continue;
  randomSeen.add(p);
  const subs = new Set([instantiate(p), instantiate(p), randomSubject(), randomSubject()]);
  randomRows.push([p, [...subs].map((s) => [s, outcome(s, [p])])]);
}

// Patterns on which picomatch's parser never returns (it steps past the end of the pattern and
// loops forever): micromatch.isMatch hangs, whatever the subject. Each is tried in a child
// process with a timeout; rows are [pattern, true (hangs) | false (returns)].
const { spawnSync } = require("child_process");
const hangCandidates = [
  "/\\\\\\\\", "a/\\\\\\\\\\", "a/\\\\\\", "*\\\\\\\\", "!\\\\\\\\", "(\\\\\\\\", "[a\\\\\\\\",
  "\\\\\\\\", "a\\\\\\\\", "a/\\\\\\\\b", "[\\\\\\\\]", "[]:[:alpha:", "x/[]:[:digit:", "[]:[:alpha:]",
  "**/*.md\\\\\\\\", "**/*.md\\\\\\",
];
const hangs = hangCandidates.map((p) => {
  const r = spawnSync(process.execPath, ["-e", "require('micromatch').isMatch('a', [JSON.parse(require('fs').readFileSync(0, 'utf8'))])"], {
    input: JSON.stringify(p),
    timeout: 3000,
  });
  return [p, Boolean(r.error && r.error.code === "ETIMEDOUT")];
});

console.log(
  JSON.stringify({
    versions: { micromatch: require("micromatch/package.json").version, picomatch: require("picomatch/package.json").version, node: process.version, platform: process.platform },
    grid: { subjects, rows },
    lists: listRows,
    random: randomRows,
    hangs,
  }),
);
