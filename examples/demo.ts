/**
 * `npm run demo`: the whole story of the SDK, start to finish, exactly as
 * `npx tenant-messaging-cli demo` tells it from an installed package. The story lives in one place,
 * the `demo` command of tenant-messaging-cli (packages/cli in the repository); this file runs that
 * bin, found through its package.json, with the arguments it was given
 * (`npm run demo -- --to +15551234567`).
 *
 * With no configuration the demo starts the local sandbox in this process (a real HTTP server on
 * 127.0.0.1) and runs against it. With TENANT_MESSAGING_BASE_URL and TENANT_MESSAGING_API_KEY set
 * it runs against that tenant instead, and then sends only to the recipient given with `--to`.
 */
import manifest from 'tenant-messaging-cli/package.json' with { type: 'json' };

process.argv.splice(2, 0, 'demo');
// The bin reads process.argv, handles Ctrl-C (exit code 130) and sets the exit code itself.
await import(new URL(manifest.bin['tenant-messaging'], import.meta.resolve('tenant-messaging-cli/package.json')).href);
