// Adds lockfile entries for the other platforms' optional binaries (biome's and rollup's
// `@scope/cli-<os>-<cpu>` packages) when `npm install` left them out.
//
// Why: the registry these machines reach serves only this platform's binaries, so `npm install`
// writes a lockfile without the others, and `npm ci` then refuses it as "not in sync". With the
// entries present (version, os, cpu, optional), `npm ci` accepts the lockfile and skips them on
// every platform they do not match, exactly as with a lockfile written elsewhere.
// Run it after changing dependencies: `npm run lockfile`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['android', 'darwin', 'freebsd', 'openbsd', 'openharmony', 'win32', 'linux', 'sunos', 'aix', 'netbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'loong64', 'ppc64', 'riscv64', 's390x', 'mips64el'];

/** `@rollup/rollup-linux-arm64-musl` -> { os: ['linux'], cpu: ['arm64'], libc: ['musl'] } */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return undefined;
  const entry = { cpu: [cpu], os: [os] };
  if (os === 'linux') entry.libc = [parts.includes('musl') || parts.includes('musleabihf') ? 'musl' : 'glibc'];
  return entry;
}

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
let added = 0;
for (const [key, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${key ? `${key}/` : ''}node_modules/${name}`;
    if (lock.packages[nested] || lock.packages[`node_modules/${name}`]) continue;
    const platform = platformOf(name);
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[`node_modules/${name}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: added ${added} platform entries`);
