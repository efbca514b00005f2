/**
 * `tail` for people, in process against a sandbox in this process: one line per event (the time,
 * the log, its type, the recipient, the status or its change), never the content; with --follow,
 * each change a line of its own, timed when seen, until Ctrl-C (130).
 */
import { MessagingClient } from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { SENDER, shellWithSandbox } from './shell-harness.js';

const shell = shellWithSandbox();
const { run } = shell;

describe('tail, for people', () => {
  const LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) {2}message log (\d+) {2}(\w+) +to (\+\d+) {2}(\w+(?: -> \w+)?)$/;

  it('one line per event: the time, the log, its type, the recipient and the status or its change; never the content', async () => {
    const secret = 'Your code is 7301';
    // Sent by the SDK, not by a second run: a run captures the process's stdout for itself.
    const client = new MessagingClient({ baseUrl: shell.tenant.baseUrl, apiKey: shell.tenant.keys.full });
    const send = () =>
      client.messages.send({ sender_phone: SENDER, to_phone: SANDBOX_PHONES.reads, type: 'text', content: secret });
    const before = Date.now();
    await send();
    const once = await run(['tail']);
    expect(once.code).toBe(0);
    const first = once.stdout.trim().split('\n');
    expect(first.length).toBeGreaterThan(0);
    for (const line of first) expect(line).toMatch(LINE);
    const newest = LINE.exec(first.at(-1) as string) ?? [];
    expect(newest.slice(3)).toEqual(['text', SANDBOX_PHONES.reads, expect.stringMatching(/^(sent|delivered|read)$/)]);
    // A new log is timed by its sent_at.
    expect(Date.parse(newest[1] as string)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

    // --follow: a change is a line of its own, from one status to the next, timed when seen.
    const controller = new AbortController();
    let fresh: number | undefined;
    let read: () => void = () => {};
    const readSeen = new Promise<void>((resolve) => (read = resolve));
    const following = run(['tail', '--follow', '--interval', '50ms'], {
      signal: controller.signal,
      onStdout: (stdout) => {
        if (fresh !== undefined && new RegExp(`message log ${fresh} .* -> read\\n`).test(stdout)) read();
      },
    });
    fresh = (await send()).id;
    const since = Date.now();
    await Promise.race([readSeen, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await client.close();
    controller.abort(new Error('Interrupted (Ctrl-C)'));
    const followed = await following;
    expect(followed.code).toBe(130);
    const lines = followed.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(LINE);
    const changes = lines.filter((line) => line.includes(`message log ${fresh} `) && line.includes(' -> '));
    expect(changes.at(-1)).toMatch(/ {2}text {6}to \+15557654321 {2}(sent|delivered) -> read$/);
    expect(Date.parse(LINE.exec(changes.at(-1) as string)?.[1] as string)).toBeGreaterThanOrEqual(
      Math.floor(since / 1000) * 1000,
    );
    expect(once.stdout + followed.stdout).not.toContain(secret);
  });
});
