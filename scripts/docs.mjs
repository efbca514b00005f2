// `npm run docs`: the reference site (docs-site/) from the TSDoc comments, by TypeDoc, configured
// in typedoc.json; any TypeDoc option may follow (`npm run docs -- --out /tmp/site`).
//
// Why this script and not `typedoc`: TypeDoc 0.28 needs the TypeScript compiler API, which
// TypeScript 7 no longer ships; scripts/typedoc-app.mjs hands it TypeScript 6 (and names each
// module of the site after its entry in package.json's `exports`).
import { typedocApp } from './typedoc-app.mjs';

const app = await typedocApp({ argv: true });
const project = await app.convert();
if (!project) process.exit(3);
app.validate(project);
if (!app.logger.hasErrors()) await app.generateOutputs(project);
const { errorCount, warningCount } = app.logger;
if (errorCount || warningCount) console.error(`typedoc: ${errorCount} errors, ${warningCount} warnings`);
process.exit(app.logger.hasErrors() ? 1 : 0);
