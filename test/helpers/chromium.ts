import { existsSync } from 'node:fs';

/** Debian's Chromium, where `.ci/run` installs it (`apt-get install chromium`). */
export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));

/**
 * Headless, as root, on a machine whose network is closed: without the background-networking flags
 * Chromium's own connections (updates, sync) are refused, many at a time. A fresh profile each run.
 */
export const chromiumFlags = (profile: string): string[] => [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--user-data-dir=${profile}`,
];
