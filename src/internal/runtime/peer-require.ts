import { createRequire } from 'node:module';

/**
 * Which build this is, set by tsup at build time (tsup.config.ts): `true` in the CommonJS build,
 * `false` in the ES module build, and not defined when the source runs as is (vitest: ES modules).
 */
declare const TENANT_MESSAGING_CJS: boolean | undefined;

/**
 * `require(name)` resolved from this package's own files, as an optional peer dependency must be
 * (`tenant-messaging/testing` loads msw, `tenant-messaging/bullmq` loads bullmq). Only those
 * entries import this module: the main entry also runs in browsers, where `node:module` is absent.
 *
 * Why the build decides, never the host: `typeof __filename` is 'string' in an ES module too when
 * the host defines a global one (`node -e` defines `[eval]`, bundlers add shims), and
 * createRequire would then resolve from the wrong place. The CommonJS build empties
 * `import.meta.url`, so each build reads only its own location.
 *
 * @example const msw = requirePeer('msw') as typeof import('msw')
 */
export function requirePeer(name: string): unknown {
  return peerRequire()(name);
}

/**
 * Where `require(name)` would find an optional peer, without loading it: a constructor checks that
 * a peer its options need is installed (and throws our error at once if not), while the module
 * itself is loaded later, on first use. Throws as `require` does when it is not installed.
 *
 * @example resolvePeer('libphonenumber-js/min') // '/app/node_modules/libphonenumber-js/min/index.cjs'
 */
export function resolvePeer(name: string): string {
  return peerRequire().resolve(name);
}

function peerRequire(): NodeJS.Require {
  const cjs = typeof TENANT_MESSAGING_CJS === 'boolean' && TENANT_MESSAGING_CJS;
  return createRequire(cjs ? __filename : (import.meta.url as string));
}
