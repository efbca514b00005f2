/**
 * The one place the schemas get Zod from: zod/mini, bundled and tree-shaken by the build
 * (a star re-export rather than a namespace object, so the bundler keeps only what is used).
 * Its English messages are loaded by validators.ts, the entry of the lazily loaded chunk.
 */
export * from 'zod/mini';
