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
 * (test/integration/examples.test.ts) and `tenant-messaging demo` from a packed install (test/integration/package.test.ts).
 */
export function expectSandboxStory(stdout: string): void {
  expect(stdout).toMatch(/^tenant-messaging demo against the local sandbox at http:\/\/127\.0\.0\.1:\d+$/m);
  for (const [i, heading] of HEADINGS.entries()) expect(stdout).toContain(`${i + 1}. ${heading}`);
  expect(stdout).toMatch(/uploading (\d+) \/ \1 bytes/);
  expect(stdout).toContain('delivery_status read after');
  expect(stdout).toContain(
    'PermissionDeniedError: The API key lacks the `usage.read` scope that GET /usage needs (HTTP 403 Forbidden): use a key that has it.',
  );
  // The pacing step: four sent, none refused by the sandbox's pair limit (retries are off, so a
  // send that came too soon would print its 429), the other person before the busy one's second.
  // Counts and order only: the printed times are when the demo saw each answer, which a busy
  // machine delays unevenly, and rounded to hundredths; the sandbox is what measures the gaps.
  const paced = [...stdout.matchAll(/^ {3}\+(\d+)\.(\d\d) s: +(?:#\d+ to (\+\d+)|(.*))$/gm)].map((line) => ({
    hundredths: Number(line[1]) * 100 + Number(line[2]),
    to: line[3],
    refused: line[4],
  }));
  expect(paced.map(({ refused }) => refused).filter(Boolean)).toEqual([]);
  const busy = '+15557654321';
  expect(paced.map(({ to }) => to === busy)).toEqual([true, false, true, true]);
  const times = paced.map(({ hundredths }) => hundredths);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(stdout).toMatch(/done in \d+\.\d s/);
}
