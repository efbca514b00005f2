/**
 * The Zod schemas, loaded on first use. Importing Zod costs a cold start about as much as a whole
 * SDK should (measured by `npm run bench`, see README, Performance): constructing a client needs
 * none of it, so a cold start (a serverless function) does not pay for it until the first call,
 * and that call starts loading it while its request is in flight.
 */
let loading: Promise<typeof import('./validators.js')> | undefined;
let loaded: typeof import('./validators.js') | undefined;

export function loadSchemas(): Promise<typeof import('./validators.js')> {
  loading ??= import('./validators.js').then((schemas) => {
    loaded = schemas;
    return schemas;
  });
  return loading;
}

/** The schemas once loaded, else undefined: lets a hot path parse without awaiting a promise. */
export function loadedSchemas(): typeof import('./validators.js') | undefined {
  return loaded;
}
