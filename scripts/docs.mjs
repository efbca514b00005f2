// `npm run docs`: the reference site (docs-site/) from the TSDoc comments, by TypeDoc, configured
// in typedoc.json; any TypeDoc option may follow (`npm run docs -- --out /tmp/site`).
//
// Why this script and not `typedoc`: TypeDoc 0.28 reads sources through the TypeScript compiler
// API, which TypeScript 7 (our `typescript`) no longer ships. A resolve hook hands TypeDoc, and
// only TypeDoc, TypeScript 6 (`@typescript/typescript6`, its JS API under another name);
// package.json's `overrides` only lets npm install TypeDoc beside TypeScript 7.
// Each module of the site is named after its entry in package.json's `exports`.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/typedoc/')) {
      return next('@typescript/typescript6', context);
    }
    return next(specifier, context);
  },
});

const td = await import('typedoc');

/** `src/sandbox/index.ts` -> `tenant-messaging/sandbox`, from the exports map's `types` paths. */
function entryNames() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const names = new Map();
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const types = target?.import?.types;
    if (typeof types !== 'string') continue; // ./openapi.json, ./package.json
    const source = types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts');
    names.set(source, subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`);
  }
  return names;
}

const app = await td.Application.bootstrapWithPlugins({}, [
  new td.ArgumentsReader(0),
  new td.TypeDocReader(),
  new td.PackageJsonReader(),
  new td.TSConfigReader(),
  new td.ArgumentsReader(300).ignoreErrors(),
]);

const names = entryNames();
const entries = app.options.getValue('entryPoints').map((path) => relative(root, resolve(root, path)));
const unlisted = [...names.keys()].filter((source) => !entries.includes(source));
const unknown = entries.filter((source) => !names.has(source));
if (unlisted.length > 0 || unknown.length > 0) {
  console.error(
    `typedoc.json's entryPoints must be the sources of package.json's exports: missing ${unlisted.join(', ') || 'none'}, not exported ${unknown.join(', ') || 'none'}`,
  );
  process.exit(1);
}

app.converter.on(td.Converter.EVENT_RESOLVE_BEGIN, (context) => {
  for (const module of context.project.children ?? []) {
    const source = module.sources?.[0]?.fullFileName;
    const name = source && names.get(relative(root, source));
    if (name) module.name = name;
  }
});

const project = await app.convert();
if (!project) process.exit(3);
app.validate(project);
if (!app.logger.hasErrors()) await app.generateOutputs(project);
const { errorCount, warningCount } = app.logger;
if (errorCount || warningCount) console.error(`typedoc: ${errorCount} errors, ${warningCount} warnings`);
process.exit(app.logger.hasErrors() ? 1 : 0);
