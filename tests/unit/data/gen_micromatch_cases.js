// Regenerates micromatch_cases.json: micromatch@4.0.8 isMatch(subject, patterns) with no
// options, as AgentV calls it. Run: node gen_micromatch_cases.js > micromatch_cases.json
const micromatch = require("micromatch");
const patterns = [
  "**/*.instructions.md", "*.instructions.md", "**/prompts/**", "prompts/**", "**/SKILL.md", "docs/AGENTS.md",
  "**/*.rules.md", "**/guidelines/**/*.md", "**/*.md", "!docs/**", ".github/**", "**/.github/**", "*",
  "**", "docs/*", "docs/**/*.md", "**/*.{md,txt}", "**/a?.md", "**/[ab].md", "**/[!a].md", "**/*.@(md|txt)",
  "**/!(*.py)", "**/+(a|b).md", "src/**/test/*.py", "/abs/**", "**/x/**/y.md", "a/**/b", "**/", "docs/",
  "./docs/*.md", "../x/*.md", "**/*.instructions.md/", "**/{a,b}/*.md", "{docs,src}/**", "**/file{1..3}.md",
  "**/\\*.md", "**/*.MD", "prompts", "**/prompts", "*/a.md", "**/.hidden/*.md", "**/.*", "**/.*/**",
  "**/[a-c]*.md", "**/*[0-9].md", "**/*.instructions.md|x", "***/*.md", "**/**/*.md", "a/**", "a/**/",
  "**/a", "**.md", "a**b/c", "!*.md", "!(a).md", "@(a|b)/**", "**/*(a).md", "**/?(a)b.md", "**/[[:alpha:]]*.md",
  "[", "{", "(", "a[b", "a{b", "**/a(b.md", "**/*.instructions.md,**/*.md", "",
];
const subjects = [
  "a.instructions.md", "docs/a.instructions.md", "/abs/x/a.instructions.md", "../../prompts/python.instructions.md",
  "../x/a.instructions.md", "./a.instructions.md", ".github/instructions/a.instructions.md",
  "docs/.hidden/a.instructions.md", "A.INSTRUCTIONS.MD", "prompts/x.md", "/prompts/x.md", "x/prompts/y/z.md",
  "docs/a.md", "docs/AGENTS.md", "a/AGENTS.md", "x/SKILL.md", "SKILL.md", "a/b/c/rules/x.rules.md",
  "guidelines/a/b.md", "x/guidelines/b.md", "x/guidelines/a/b.md", "src/a/test/b.py", "src/test/b.py",
  "a.md", "ab.md", "b.md", "c.md", "a.txt", "a.py", "prompts", "x/prompts", "prompts/", "docs/", "docs",
  "a/b", "a/x/b", "a/x/y/b", "a", "a/", ".a.md", "x/.a.md", ".hidden/a.md", "x/.hidden/a.md", "file2.md",
  "x/file4.md", "*.md", "x/*.md", "a.MD", "x/y.md", "x/a/y.md", "x/a/b/y.md", "a/b.md", "b/a.md", "c/a.md",
  "abc.md", "a1.md", "x/a9.md", "aab.md", "b.instructions.md", "../a.md", "..", ".", "../", "./", "",
  "docs/..", "docs/../a.md", "docs/./a.md", "x//a.md", "a\\b.md", "docs\\a.md", "é/ü.md", "a b/c d.md",
];
const rows = [];
for (const p of patterns) for (const s of subjects) {
  let r; try { r = micromatch.isMatch(s, [p]); } catch (e) { r = "ERROR"; }
  rows.push([[p], s, r]);
}
const lists = [["**/*.md", "!docs/**"], ["!docs/**", "**/*.md"], [], ["**/*.instructions.md", "**/prompts/**/*.md"],
  ["*.md", "**/SKILL.md"]];
for (const l of lists) for (const s of subjects) {
  let r; try { r = micromatch.isMatch(s, l); } catch (e) { r = "ERROR"; }
  rows.push([l, s, r]);
}
console.log(JSON.stringify(rows));
