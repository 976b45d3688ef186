// Records what the published AgentV 4.42.4 runtime makes of eval files: what loadTests loads,
// what buildPromptInputs builds in both modes, and the exact grader (judge) requests that the
// orchestrator's runEvalCase sends, captured with fake providers (no model is ever called, no
// code grader, prompt script, workspace hook or composite aggregator is ever run).
//
//   AGENTV4_MODULES=<node_modules> node driver.mjs cases CASES_DIR [CASE...]
//       records each case folder into CASES_DIR/CASE/expected/ (the golden-v4 layout, plus the
//       grader fields below); the folder is copied to a scratch directory with a .git/ first.
//   AGENTV4_MODULES=<node_modules> node driver.mjs batch MANIFEST.json OUT.jsonl
//       MANIFEST: [{"root": "/abs/repo", "files": ["evals/a.eval.yaml", ...]}, ...] (repos already
//       staged by the caller); one JSON line per eval file: {"root", "file", ...record}. Fast:
//       everything runs in this one process (validation too: the calls `agentv validate` makes).
//
// Per eval file (paths under the repo root scrubbed to <ROOT>): file, load_error, load_error_type,
// warnings (console messages of load + both prompt builds, "<stream>: <text>"), validation
// ({exit_code, issues}; in cases mode also the CLI's text), cases[]: id, conversation_id, criteria, expected_output, reference_answer,
// file_paths, input, metadata, question (the loaded test's own), evaluator, assertions (the parsed
// grader configs), mode, turns, window_size (conversation mode), lm, agent, and
//   judge_prompt        {question, systemPrompt} | null: the first grader request in LM mode
//   judge_prompt_agent  the same with the candidate run in agent mode (file-reference prompt)
//   grader_requests     every grader request in LM mode, in order: {grader, question, systemPrompt}
//                       (a grader whose prompt is a script is listed with question null, never run)
//   grader_messages     console messages printed while grading in LM mode
// The candidate answer is the fixed text CANDIDATE_ANSWER (what a preview shows in its place).
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CANDIDATE = 'CANDIDATE_ANSWER';
const GRADING_TIMEOUT_MS = 30000;
const modules = process.env.AGENTV4_MODULES;
if (!modules || !existsSync(path.join(modules, '@agentv', 'core'))) {
  console.error('set AGENTV4_MODULES to the node_modules folder holding @agentv/core@4.42.4 and agentv@4.42.4');
  process.exit(2);
}
const core = await import(path.join(modules, '@agentv', 'core', 'dist', 'index.js'));
const { loadTests, buildPromptInputs, runEvalCase, createBuiltinRegistry } = core;
const cliPath = path.join(modules, 'agentv', 'dist', 'cli.js');
const validation = await import(path.join(modules, '@agentv', 'core', 'dist', 'evaluation', 'validation', 'index.js'));

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function scrubber(root) {
  const pairs = [];
  let p = root;
  for (const label of ['<ROOT>', '<ROOT>/..', '<ROOT>/../..', '<ROOT>/../../..']) {
    pairs.push([p, label]);
    p = path.dirname(p);
  }
  const scrub = (value) => {
    if (typeof value === 'string') {
      let s = value.replace(ANSI, '');
      for (const [abs, label] of pairs) s = s.split(abs).join(label);
      return s;
    }
    if (Array.isArray(value)) return value.map(scrub);
    if (value && typeof value === 'object') {
      const out = {};
      for (const [k, v] of Object.entries(value)) out[k] = scrub(v);
      return out;
    }
    return value;
  };
  return scrub;
}

function rel(root, p) {
  if (typeof p !== 'string') return p;
  const r = path.relative(root, path.resolve(root, p)).split(path.sep).join('/');
  return r === '' ? '.' : r;
}

function evalFiles(root, spec) {
  if (spec && Array.isArray(spec.evals)) return spec.evals;
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      if (name.startsWith('.') || name === 'expected' || name === 'node_modules') continue;
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.eval\.ya?ml$/i.test(name)) out.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out;
}

function validate(root, target) {
  const r = spawnSync(process.execPath, [cliPath, 'validate', target], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    timeout: 120000,
  });
  const text = `${r.stdout ?? ''}${r.stderr ?? ''}`.replace(ANSI, '');
  const issues = [];
  for (const line of text.split('\n')) {
    const m = /^\s+([✗⚠])\s+(?:\[(.+?)\]\s+)?(.*)$/.exec(line);
    if (m) issues.push({ severity: m[1] === '✗' ? 'error' : 'warning', location: m[2] ?? null, message: m[3] });
  }
  return { exit_code: r.status, issues, text };
}

// What `agentv validate FILE` decides for one file, in this process (the calls its
// validate-files.ts makes): {exit_code, issues: [{severity, location | null, message}]}.
async function validateInProcess(abs) {
  const { detectFileType, validateEvalFile, validateCasesFile, validateTargetsFile, validateConfigFile } = validation;
  const [result] = await captureConsole(async () => {
    const fileType = await detectFileType(abs);
    if (fileType === 'eval') {
      let r = await validateEvalFile(abs);
      if (r.valid || r.errors.filter((e) => e.severity === 'error').length === 0) {
        const extra = [
          ...(await validation.validateFileReferences(abs)),
          ...(await validation.validateWorkspacePaths(abs)),
        ];
        if (extra.length > 0) {
          r = { ...r, errors: [...r.errors, ...extra], valid: r.valid && extra.every((e) => e.severity !== 'error') };
        }
      }
      return r;
    }
    if (fileType === 'cases') return validateCasesFile(abs);
    if (fileType === 'targets') return validateTargetsFile(abs);
    if (fileType === 'config') return validateConfigFile(abs);
    return { valid: true, errors: [{ severity: 'warning', message: 'File type not recognized. Eval files must end in .eval.yaml. Skipping validation.' }] };
  });
  return {
    exit_code: result.valid ? 0 : 1,
    issues: result.errors.map((e) => ({ severity: e.severity, location: e.location ?? null, message: e.message })),
  };
}

async function captureConsole(fn) {
  const seen = [];
  const saved = { warn: console.warn, error: console.error, log: console.log, info: console.info };
  for (const k of Object.keys(saved)) console[k] = (...a) => seen.push(`${k}: ${a.map(String).join(' ')}`);
  try {
    return [await fn(), seen];
  } finally {
    Object.assign(console, saved);
  }
}

// ---- grading with fake providers -------------------------------------------------------------

// One JSON answer that satisfies the freeform, checklist and score-range schemas alike (zod
// ignores unknown keys), so every grader sends its request exactly once (no retry, no repair).
const GRADER_ANSWER = JSON.stringify({ score: 1, checks: [], overall_reasoning: 'ok', assertions: [] });

function graderProvider(requests, state) {
  return {
    id: 'capture-grader',
    kind: 'mock',
    targetName: 'capture-grader',
    async invoke(request) {
      requests.push({ grader: state.grader, question: request.question, systemPrompt: request.systemPrompt ?? null });
      return { output: [{ role: 'assistant', content: GRADER_ANSWER }] };
    },
  };
}

// kind 'cli' makes the orchestrator build the agent-mode (file reference) prompt; 'mock' the LM one.
function candidateProvider(kind) {
  return {
    id: `candidate-${kind}`,
    kind,
    targetName: 'candidate',
    async invoke() {
      return { output: [{ role: 'assistant', content: CANDIDATE }] };
    },
  };
}

const NEUTRAL_SCORE = { score: 1, verdict: 'pass', assertions: [], expectedAspectCount: 1 };

// The built-in registry with every grader that could run a command (code-grader, composite with its
// code aggregator, prompt scripts) replaced by a neutral stub, and llm-grader wrapped to note which
// grader sends each request.
function safeRegistry(state) {
  const registry = createBuiltinRegistry();
  const llm = registry.get('llm-grader');
  const stub = (kind) => () => ({ kind, evaluate: async () => NEUTRAL_SCORE });
  registry.register('code-grader', stub('code-grader'));
  registry.register('composite', stub('composite'));
  registry.register('llm-grader', (config, context) => {
    if (config.resolvedPromptScript && config.resolvedPromptScript.length > 0) {
      // its prompt is a script's output: noted, never run
      return {
        kind: 'llm-grader',
        async evaluate() {
          state.requests.push({ grader: config.name ?? 'llm-grader', question: null, systemPrompt: null, prompt_script: true });
          return NEUTRAL_SCORE;
        },
      };
    }
    const inner = llm(config, context);
    return {
      kind: 'llm-grader',
      async evaluate(evalContext) {
        state.grader = config.name ?? 'llm-grader';
        const grader = await inner;
        return grader.evaluate(evalContext);
      },
    };
  });
  return registry;
}

async function graderRequests(test, kind) {
  const requests = [];
  const state = { grader: 'llm-grader', requests };
  const capture = graderProvider(requests, state);
  const { LlmGrader } = core;
  const defaultGrader = new LlmGrader({ resolveGraderProvider: async () => capture });
  // never prepare a workspace (hooks, repos, templates): the grader prompt does not depend on it
  const evalCase = { ...test, workspace: undefined };
  const [, messages] = await captureConsole(async () => {
    let timer;
    try {
      const run = runEvalCase({
        evalCase,
        provider: candidateProvider(kind),
        target: { name: 'candidate', kind, config: {} },
        evaluators: { 'llm-grader': defaultGrader },
        graderProvider: capture,
        typeRegistry: safeRegistry(state),
        targetResolver: () => capture,
        availableTargets: ['candidate'],
        maxRetries: 0,
      });
      // nothing here waits on a model, so a test that takes long is stuck: note it and go on
      const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no result after ${GRADING_TIMEOUT_MS} ms`)), GRADING_TIMEOUT_MS);
      });
      await Promise.race([run, limit]);
    } catch (e) {
      console.error(`driver: runEvalCase threw ${e?.constructor?.name ?? 'Error'}: ${e?.message ?? e}`);
    } finally {
      clearTimeout(timer);
    }
  });
  return { requests, messages };
}

// ---- one eval file ---------------------------------------------------------------------------

function first(requests) {
  // a prompt-script grader (question null) first: its prompt is unknown, so there is none to show
  return requests.length && requests[0].question !== null
    ? { question: requests[0].question, systemPrompt: requests[0].systemPrompt }
    : null;
}

// withValidation: 'cli' runs `agentv validate FILE` (its printed text kept), 'process' the same
// checks in this process (fast, for batches)
async function recordFile(root, file, withValidation) {
  const abs = path.join(root, file);
  let tests = [];
  let loadError = null;
  let loadErrorType = null;
  const [, logs] = await captureConsole(async () => {
    try {
      tests = await loadTests(abs, root, {});
    } catch (e) {
      loadError = String(e?.message ?? e);
      loadErrorType = e?.constructor?.name ?? 'Error';
    }
  });
  const cases = [];
  for (const t of tests) {
    const [built, buildLogs] = await captureConsole(async () => ({
      lm: await buildPromptInputs(t, 'lm'),
      agent: await buildPromptInputs(t, 'agent'),
    }));
    logs.push(...buildLogs);
    const lmGrading = await graderRequests(t, 'mock');
    const agentGrading = await graderRequests(t, 'cli');
    const mode = (p) => ({ question: p.question, chatPrompt: p.chatPrompt ?? null, systemMessage: p.systemMessage ?? null });
    cases.push({
      id: t.id,
      conversation_id: t.conversation_id ?? null,
      criteria: t.criteria ?? null,
      expected_output: t.expected_output ?? null,
      reference_answer: t.reference_answer ?? null,
      file_paths: (t.file_paths ?? []).map((p) => rel(root, p)),
      input: t.input ?? null,
      metadata: t.metadata ?? null,
      question: t.question ?? null,
      evaluator: t.evaluator ?? null,
      assertions: t.assertions ?? null,
      mode: t.mode ?? null,
      turns: t.turns ?? null,
      window_size: t.window_size ?? null,
      lm: mode(built.lm),
      agent: mode(built.agent),
      judge_prompt: first(lmGrading.requests),
      judge_prompt_agent: first(agentGrading.requests),
      grader_requests: lmGrading.requests,
      grader_messages: lmGrading.messages,
    });
  }
  const record = {
    file,
    load_error: loadError,
    load_error_type: loadErrorType,
    warnings: logs,
    validation: withValidation === 'cli' ? validate(root, file) : await validateInProcess(abs),
    cases,
  };
  return scrubber(root)(record);
}

// ---- modes -----------------------------------------------------------------------------------

async function recordCaseFolder(src, n, scratch) {
  const spec = existsSync(path.join(src, 'case.json')) ? JSON.parse(readFileSync(path.join(src, 'case.json'), 'utf8')) : {};
  const root = path.join(scratch, 'r', String(n), 'case');
  mkdirSync(path.dirname(root), { recursive: true });
  cpSync(src, root, { recursive: true, filter: (s) => path.basename(s) !== 'expected' });
  if (spec.git_root !== false) mkdirSync(path.join(root, '.git'), { recursive: true });
  const out = path.join(src, 'expected');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const files = evalFiles(root, spec);
  const cwd = process.cwd();
  process.chdir(root);
  try {
    for (const file of files) {
      const record = await recordFile(root, file, 'cli');
      writeFileSync(path.join(out, `${file.split('/').join('__')}.json`), `${JSON.stringify(record, null, 2)}\n`);
    }
    const whole = validate(root, '.');
    const summary = { eval_files: files, git_root: spec.git_root !== false, validate_root: whole };
    writeFileSync(path.join(out, '_case.json'), `${JSON.stringify(scrubber(root)(summary), null, 2)}\n`);
  } finally {
    process.chdir(cwd);
  }
  return files.length;
}

async function casesMode(casesDir, only) {
  const names = only.length
    ? only
    : readdirSync(casesDir).filter((d) => statSync(path.join(casesDir, d)).isDirectory()).sort();
  const scratch = mkdtempSync(path.join(tmpdir(), 'agentv4-oracle-'));
  try {
    let n = 0;
    for (const name of names) {
      const count = await recordCaseFolder(path.resolve(casesDir, name), n++, scratch);
      process.stdout.write(`${name}: ${count} eval file(s)\n`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function batchMode(manifestPath, outPath) {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const lines = [];
  const cwd = process.cwd();
  for (const entry of manifest) {
    const root = path.resolve(entry.root);
    const files = entry.files ?? evalFiles(root, null);
    process.chdir(root);
    try {
      for (const file of files) {
        let record;
        try {
          record = await recordFile(root, file, 'process');
        } catch (e) {
          record = { file, driver_error: String(e?.stack ?? e) };
        }
        lines.push(JSON.stringify({ root, ...record }));
      }
    } finally {
      process.chdir(cwd);
    }
  }
  writeFileSync(outPath, lines.length ? `${lines.join('\n')}\n` : '');
}

const [command, ...rest] = process.argv.slice(2);
if (command === 'cases' && rest.length >= 1) {
  await casesMode(rest[0], rest.slice(1));
  process.exit(0); // a timer left behind by the runtime must not keep the process alive
} else if (command === 'batch' && rest.length === 2) {
  await batchMode(rest[0], rest[1]);
  process.exit(0);
} else {
  console.error('usage: driver.mjs cases CASES_DIR [CASE...] | driver.mjs batch MANIFEST.json OUT.jsonl');
  process.exit(2);
}
