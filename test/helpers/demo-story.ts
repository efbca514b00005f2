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
  'Pacing: one message per person at a time',
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
  // The pacing step: four sent, none refused by the sandbox's pair limit, the other person first.
  const paced = [...stdout.matchAll(/^ {3}\+(\d+\.\d\d) s: +#\d+ to (\+\d+)$/gm)];
  expect(paced).toHaveLength(4);
  const busy = paced.filter((line) => line[2] === '+15557654321').map((line) => Number(line[1]));
  expect(busy).toHaveLength(3);
  expect((busy[2] as number) - (busy[0] as number)).toBeGreaterThanOrEqual(0.8);
  expect(Number(paced.find((line) => line[2] !== '+15557654321')?.[1])).toBeLessThan(0.3);
  expect(stdout).toMatch(/done in \d+\.\d s/);
}
