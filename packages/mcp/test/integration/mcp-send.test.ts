/**
 * Sending through `tenant-messaging-mcp --allow-send`, in this process against the sandbox: the
 * POSTs the sandbox counts are the proof. prepare then send is one POST, the same approval again
 * none, a made-up one none, two at once one; a confirmation declined none, accepted one; the
 * operator's limits refuse; an answer lost after storing is found in the logs, never resent;
 * an approval expires; prepare_send refuses what messages.send refuses, in the same words.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ValidationError } from 'tenant-messaging';
import { SANDBOX_PHONES } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { type Connected, fixtureForFile, text } from './mcp-fixture.js';

const SENDER = '+15550001001';
const TO = SANDBOX_PHONES.reads;

const fx = fixtureForFile();

/** prepare_send of a text to `to`; returns the approval. */
async function prepare(server: Connected, content: string, to: string = TO): Promise<string> {
  const result = await server.call('prepare_send', { sender_phone: SENDER, to_phone: to, type: 'text', content });
  expect(result.isError, text(result)).toBeFalsy();
  return result.structuredContent?.['approval'] as string;
}

const sent = (content: string) => fx.sandbox.messages('acme').filter((m) => m.content === content).length;

describe('prepare_send, then send_message', () => {
  it('prepare sends nothing; send sends once; the same approval again returns the same log and sends nothing', async () => {
    const server = await fx.connect({ allowSend: true, maxSends: 10 });
    const before = fx.posts();
    const prepared = await server.call('prepare_send', {
      sender_phone: SENDER,
      to_phone: TO,
      type: 'text',
      content: 'Your order 1042 has shipped',
    });
    expect(fx.posts()).toBe(before);
    expect(prepared.structuredContent).toMatchObject({
      approval: expect.stringMatching(/^tma_[\w-]{43}$/),
      expires_at: expect.any(String),
      preview: {
        sender_phone: SENDER,
        to_phone: TO,
        content: 'Your order 1042 has shipped',
        not_before: null,
        sends_left: 10,
      },
    });
    expect(text(prepared)).toMatch(/^Prepared, NOT sent\. Show the person/);
    expect(text(prepared)).toContain('(in 15 minutes)');
    const approval = prepared.structuredContent?.['approval'] as string;

    const first = await server.call('send_message', { approval });
    expect(first.isError, text(first)).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ id: expect.any(Number), delivery_status: 'sent' });
    expect(fx.posts()).toBe(before + 1);

    const again = await server.call('send_message', { approval });
    expect(again.structuredContent?.['id']).toBe(first.structuredContent?.['id']);
    expect(text(again)).toMatch(/^Already sent with this approval; nothing was sent again/);
    expect(fx.posts()).toBe(before + 1);
    expect(sent('Your order 1042 has shipped')).toBe(1);
  });

  it('a made-up approval sends nothing, nor can one carry a message of its own', async () => {
    const server = await fx.connect({ allowSend: true });
    const before = fx.posts();
    const madeUp = await server.call('send_message', { approval: 'tma_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' });
    expect(text(madeUp)).toMatch(/^This server issued no such approval/);
    const approval = await prepare(server, 'Exactly this');
    const changed = await server.call('send_message', {
      approval,
      content: 'Something else',
      to_phone: '+15550009999',
    });
    expect(changed.isError).toBe(true);
    expect(text(changed)).toMatch(/Unrecognized keys: "content", "to_phone"/);
    expect(fx.posts()).toBe(before);
  });

  it('two send_message calls at once with one approval send once, and both get the log', async () => {
    const server = await fx.connect({ allowSend: true });
    const approval = await prepare(server, 'Sent once only');
    const before = fx.posts();
    fx.sandbox.faults.add({ kind: 'latency', latencyMs: 100, route: 'POST /messages' });
    const [a, b] = await Promise.all([
      server.call('send_message', { approval }),
      server.call('send_message', { approval }),
    ]);
    expect(fx.posts()).toBe(before + 1);
    expect(a.structuredContent?.['id']).toBe(b.structuredContent?.['id']);
    expect(sent('Sent once only')).toBe(1);
  });

  it('checks the parameters as messages.send does, in the same words; media is refused', async () => {
    const server = await fx.connect({ allowSend: true });
    const before = fx.posts();
    const bad = { sender_phone: SENDER, sender_number_id: 1, to_phone: ' ', type: 'text', content: '' };
    const refused = await server.call('prepare_send', bad);
    const sdk = await fx
      .client()
      .messages.send(bad as never)
      .catch((error: unknown) => error);
    expect(sdk).toBeInstanceOf(ValidationError);
    expect(text(refused)).toContain((sdk as ValidationError).message);
    const media = await server.call('prepare_send', { sender_phone: SENDER, to_phone: TO, type: 'image' });
    expect(text(media)).toContain("type: must be 'text'");
    expect(fx.posts()).toBe(before);
  });
});

describe('confirmation through elicitation', () => {
  const confirmSend =
    (action: 'accept' | 'decline' | 'cancel', confirm = true) =>
    () =>
      action === 'accept' ? { action, content: { confirm } } : { action };

  it('declined: nothing sent, the approval is spent; accepted: sent once; the question names the recipient and the text', async () => {
    const declining = await fx.connect(
      { allowSend: true },
      { capability: { form: {} }, answer: confirmSend('decline') },
    );
    const before = fx.posts();
    const approval = await prepare(declining, 'Please confirm me');
    const declined = await declining.call('send_message', { approval });
    expect(text(declined)).toMatch(/^The person declined this message: nothing was sent/);
    expect(declining.asked).toHaveLength(1);
    expect(declining.asked[0]).toContain(TO);
    expect(declining.asked[0]).toContain('Please confirm me');
    expect((await declining.call('send_message', { approval })).isError).toBe(true);
    expect(declining.asked).toHaveLength(1);
    expect(fx.posts()).toBe(before);

    const accepting = await fx.connect(
      { allowSend: true },
      { capability: { form: {} }, answer: confirmSend('accept') },
    );
    const second = await prepare(accepting, 'Confirmed by a person');
    const accepted = await accepting.call('send_message', { approval: second });
    expect(accepted.structuredContent).toMatchObject({ content: 'Confirmed by a person' });
    expect(fx.posts()).toBe(before + 1);
  });

  it('cancelled (or accepted with the box unticked): nothing sent; a cancelled approval can be confirmed later', async () => {
    let answer = confirmSend('cancel');
    // `{}`: how clients older than elicitation modes declare it; they are asked too.
    const server = await fx.connect({ allowSend: true }, { capability: {}, answer: () => answer() });
    const before = fx.posts();
    const approval = await prepare(server, 'Maybe later');
    expect(text(await server.call('send_message', { approval }))).toMatch(/^The person closed the confirmation/);
    answer = confirmSend('accept', false);
    const unticked = await prepare(server, 'Not ticked');
    expect(text(await server.call('send_message', { approval: unticked }))).toMatch(/^The person declined/);
    expect(fx.posts()).toBe(before);
    answer = confirmSend('accept');
    const later = await server.call('send_message', { approval });
    expect(later.structuredContent).toMatchObject({ content: 'Maybe later' });
    expect(server.asked).toHaveLength(3);
    expect(fx.posts()).toBe(before + 1);
  });
});

describe('the operator’s limits', () => {
  it('--max-sends: refused at prepare once used up, and at send when two were prepared for the last one', async () => {
    const server = await fx.connect({ allowSend: true, maxSends: 1 });
    const before = fx.posts();
    const one = await prepare(server, 'Cap one');
    const two = await prepare(server, 'Cap two');
    expect((await server.call('send_message', { approval: one })).isError).toBeFalsy();
    const over = await server.call('send_message', { approval: two });
    expect(text(over)).toMatch(/^This server may send 1 messages in its life \(--max-sends 1\) and has used them/);
    const third = await server.call('prepare_send', { sender_phone: SENDER, to_phone: TO, type: 'text', content: 'x' });
    expect(text(third)).toMatch(/--max-sends 1/);
    expect(fx.posts()).toBe(before + 1);
  });

  it('--allow-recipients: a recipient outside the list is refused at prepare_send', async () => {
    const server = await fx.connect({ allowSend: true, allowRecipients: '+1555765*,+447911123456' });
    const before = fx.posts();
    const refused = await server.call('prepare_send', {
      sender_phone: SENDER,
      to_phone: '+15550000000',
      type: 'text',
      content: 'x',
    });
    expect(text(refused)).toMatch(
      /^\+15550000000 is not among the recipients this server may write to \(--allow-recipients \+1555765\*,\+447911123456\)/,
    );
    await prepare(server, 'Allowed', TO);
    expect(fx.posts()).toBe(before);
  });
});

describe('an outcome that is unknown', () => {
  it('is found in the logs (messages.reconcile) and never sent again', async () => {
    const server = await fx.connect({ allowSend: true });
    const approval = await prepare(server, 'Lost answer');
    const before = fx.posts();
    fx.sandbox.faults.add({ kind: 'lost-answer', route: 'POST /messages', times: 1 });
    const result = await server.call('send_message', { approval });
    expect(text(result)).toMatch(/^Sent \(the API’s answer was lost; the message logs show it arrived\)/);
    const again: CallToolResult = await server.call('send_message', { approval });
    expect(again.structuredContent?.['id']).toBe(result.structuredContent?.['id']);
    expect(fx.posts()).toBe(before + 1);
    expect(sent('Lost answer')).toBe(1);
  });

  it('not found yet: says what is known, sends nothing more, and looks again on the next call', async () => {
    const server = await fx.connect({ allowSend: true });
    const approval = await prepare(server, 'Never stored');
    const before = fx.posts();
    // Dropped before the sandbox stored it: the SDK cannot know that.
    fx.sandbox.faults.add({ kind: 'drop', route: 'POST /messages', times: 1 });
    const result = await server.call('send_message', { approval });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^The outcome of this send is unknown: .* It may have been sent, so it was NOT sent again/,
    );
    expect(text(result)).toContain('Searched the message logs: no log matches it');
    expect((await server.call('send_message', { approval })).isError).toBe(true);
    expect(fx.posts()).toBe(before + 1);
  });
});

describe('approvals', () => {
  it('expire unused after 15 minutes, and then send nothing', async () => {
    let now = Date.now();
    const server = await fx.connect({ allowSend: true, now: () => now });
    const approval = await prepare(server, 'Too late');
    now += 15 * 60_000;
    const before = fx.posts();
    const expired = await server.call('send_message', { approval });
    expect(text(expired)).toMatch(/^This approval expired at .* unused: nothing was sent/);
    expect(fx.posts()).toBe(before);
  });

  it('belong to the server process that issued them', async () => {
    const one = await fx.connect({ allowSend: true });
    const other = await fx.connect({ allowSend: true });
    const approval = await prepare(one, 'Elsewhere');
    expect(text(await other.call('send_message', { approval }))).toMatch(/^This server issued no such approval/);
  });

  it('no result showed the API key', () => {
    for (const result of fx.seen) for (const key of fx.keys) expect(result).not.toContain(key);
  });
});
