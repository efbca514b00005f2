// The Cloudflare Worker of the ecosystem test: wrangler bundles it with the packed SDK (the
// `workerd` export condition) and serves it with `wrangler dev`; each request runs program.mjs
// with the Worker's vars and answers its steps as JSON. The program is imported after the flag
// is set: a Worker may not make requests while its module is being evaluated.
globalThis.ECOSYSTEM_NO_MAIN = true;
const { run } = await import('./program.mjs');

export default {
  async fetch(_request, env) {
    return Response.json(await run(env));
  },
};
