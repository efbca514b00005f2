import { expect } from 'vitest';

/** Each step's heading, in the order the demo tells them. */
const HEADINGS = [
  'Who am I',
  'Subscription',
  'Sender numbers',
  'Look up',
  'Send a text',
  'Send an image',
  'Wait until',
  'Latest message logs',
  'Usage',
  'A deliberate error',
];

/**
 * Asserts that `stdout` is the whole demo story as told without credentials, against the sandbox
 * the demo starts itself: every numbered step, the wait until read, and the deliberate error of
 * the sandbox's key without `usage.read`. One assertion for `npm run demo` from a clone
 * (test/examples.test.ts) and `tenant-messaging demo` from a packed install (test/package.test.ts).
 */
export function expectSandboxStory(stdout: string): void {
  expect(stdout).toMatch(/^tenant-messaging demo against the local sandbox at http:\/\/127\.0\.0\.1:\d+$/m);
  for (const [i, heading] of HEADINGS.entries()) expect(stdout).toContain(`${i + 1}. ${heading}`);
  expect(stdout).toMatch(/uploading (\d+) \/ \1 bytes/);
  expect(stdout).toContain('delivery_status read after');
  expect(stdout).toContain('PermissionDeniedError: The API key does not include the required scope.');
  expect(stdout).toMatch(/done in \d+\.\d s/);
}
