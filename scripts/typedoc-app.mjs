// The TypeDoc set-up that `npm run docs` (scripts/docs.mjs) and `npm run docs:api`
// (scripts/api-reference.mjs) share: TypeDoc on TypeScript 6, typedoc.json's options, its entry
// points checked against package.json's `exports`, and each module named after its entry.
//
// Why TypeScript 6: TypeDoc 0.28 reads sources through the TypeScript compiler API, which
// TypeScript 7 (our `typescript`) no longer ships. A resolve hook hands TypeDoc, and only TypeDoc,
// TypeScript 6 (`@typescript/typescript6`, its JS API under another name); package.json's
// `overrides` only lets npm install TypeDoc beside TypeScript 7.
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
process.chdir(root);

registerHooks({
  resolve(specifier, context, next) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/typedoc/')) {
      return next('@typescript/typescript6', context);
    }
    return next(specifier, context);
  },
});

export const td = await import('typedoc');

/**
 * `src/sandbox/index.ts` -> `tenant-messaging/sandbox`, from the exports map's `types` paths, in
 * the exports map's order.
 */
export function entryNames() {
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

/**
 * A TypeDoc application configured by typedoc.json (then `options`, then, with `argv`, the command
 * line's TypeDoc options), whose modules are named after their entries. Exits the process with a
 * message when typedoc.json's entry points are not exactly the sources of the exports map.
 */
export async function typedocApp({ options = {}, argv = false } = {}) {
  const readers = [new td.TypeDocReader(), new td.PackageJsonReader(), new td.TSConfigReader()];
  if (argv) readers.unshift(new td.ArgumentsReader(0));
  if (argv) readers.push(new td.ArgumentsReader(300).ignoreErrors());
  const app = await td.Application.bootstrapWithPlugins(options, readers);

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
  return app;
}
