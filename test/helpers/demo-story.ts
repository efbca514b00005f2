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
  // Times are printed to hundredths: compare them as whole hundredths, never as floats
  // (1.20 - 0.40 is 0.7999999999999999). Rounding is monotone, so a gap of 0.8 s or more
  // between two sends still prints as 80 hundredths or more.
  const paced = [...stdout.matchAll(/^ {3}\+(\d+)\.(\d\d) s: +#\d+ to (\+\d+)$/gm)].map((line) => ({
    hundredths: Number(line[1]) * 100 + Number(line[2]),
    to: line[3],
  }));
  expect(paced).toHaveLength(4);
  const busy = paced.filter((line) => line.to === '+15557654321').map((line) => line.hundredths);
  expect(busy).toHaveLength(3);
  expect((busy[2] as number) - (busy[0] as number)).toBeGreaterThanOrEqual(80);
  expect(paced.find((line) => line.to !== '+15557654321')?.hundredths).toBeLessThan(30);
  expect(stdout).toMatch(/done in \d+\.\d s/);
}
