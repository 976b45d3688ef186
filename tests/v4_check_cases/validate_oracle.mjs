// What `agentv validate FILE` (4.42.4) reports for each file, as JSON, using the published
// @agentv/core validation entry points the same way apps/cli's validate-files.ts does.
//   AGENTV4_MODULES=<node_modules> node validate_oracle.mjs FILE...   (run from the repo's cwd)
// Prints [{file, file_type, valid, issues: [{severity, location, message, file}]}].
import path from 'node:path';

const modules = process.env.AGENTV4_MODULES;
const v = await import(path.join(modules, '@agentv', 'core', 'dist', 'evaluation', 'validation', 'index.js'));

async function one(file) {
  const abs = path.resolve(file);
  const fileType = await v.detectFileType(abs);
  let result;
  if (fileType === 'eval') {
    result = await v.validateEvalFile(abs);
    if (result.valid || result.errors.filter((e) => e.severity === 'error').length === 0) {
      const extra = [...(await v.validateFileReferences(abs)), ...(await v.validateWorkspacePaths(abs))];
      if (extra.length > 0) {
        result = { ...result, errors: [...result.errors, ...extra], valid: result.valid && extra.every((e) => e.severity !== 'error') };
      }
    }
  } else if (fileType === 'cases') result = await v.validateCasesFile(abs);
  else if (fileType === 'targets') result = await v.validateTargetsFile(abs);
  else if (fileType === 'config') result = await v.validateConfigFile(abs);
  else result = { valid: true, errors: [{ severity: 'warning', filePath: abs, message: 'File type not recognized. Eval files must end in .eval.yaml. Skipping validation.' }] };
  return {
    file: abs,
    file_type: fileType,
    valid: result.valid,
    issues: result.errors.map((e) => ({ severity: e.severity, location: e.location ?? null, message: e.message, file: e.filePath })),
  };
}

const saved = console.warn;
console.warn = () => {};
const out = [];
for (const f of process.argv.slice(2)) out.push(await one(f));
console.warn = saved;
process.stdout.write(`${JSON.stringify(out)}\n`);
