/**
 * What the sandbox answers, class by class, for what the API refuses: a NUL or bytes that are
 * not UTF-8 in a field (422 on that field), a body the framework cannot decode (422 of
 * "required" messages, as golden capture `send_malformed_json`), a request no fetch Request can
 * stand for (the web server's 405 or 400); and that valid sends of any well-formed text, as JSON
 * or multipart, are still stored exactly as sent.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import { createSandbox, startSandbox } from 'tenant-messaging/sandbox';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeForm } from '../../helpers/hostile-inputs.js';

const sandbox = createSandbox();
const url = `${sandbox.tenants['acme']?.baseUrl}/api/v1/messages`;
const HEADERS = { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' };
const NO_FIELDS = {
  sender_phone: ['The sender phone field is required when sender number id is not present.'],
  sender_number_id: ['The sender number id field is required when sender phone is not present.'],
  to_phone: ['The to phone field is required.'],
  type: ['The type field is required.'],
};
const VALID_JSON = '{"sender_number_id":1,"to_phone":"+15557654321","type":"text","content":"hi"}';

afterEach(() => sandbox.reset());

/** POSTs `body` as `type` and returns the status and the parsed JSON body. */
async function post(body: BodyInit, type?: string) {
  const headers: Record<string, string> = { ...HEADERS };
  if (type !== undefined) headers['content-type'] = type;
  const res = await sandbox.fetch(url, { method: 'POST', headers, body });
  return [res.status, await res.json()] as const;
}

const bytes = (text: string) => Buffer.from(text, 'latin1');

describe('POST /messages refuses what the API refuses, with a 422 on the field', () => {
  it('a NUL in any text field, escaped in JSON or raw in a form', async () => {
    for (const field of ['sender_phone', 'to_phone', 'type', 'content']) {
      const send: Record<string, unknown> = {
        sender_phone: '+15550001001',
        to_phone: '+15557654321',
        type: 'text',
        content: 'hi',
      };
      send[field] = `${send[field]}\0`;
      const message = `The ${field.replaceAll('_', ' ')} field must not contain a NUL character.`;
      expect(await post(JSON.stringify(send), 'application/json')).toEqual([
        422,
        { message, errors: { [field]: [message] } },
      ]);
      const form = Object.entries(send)
        .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
        .join('&');
      expect(await post(form, 'application/x-www-form-urlencoded')).toEqual([
        422,
        { message, errors: { [field]: [message] } },
      ]);
    }
    const id = 'The sender number id field must not contain a NUL character.';
    expect(await post(VALID_JSON.replace('1,', '"1\\u0000",'), 'application/json')).toEqual([
      422,
      { message: id, errors: { sender_number_id: [id] } },
    ]);
    expect(sandbox.counters.sendsStored).toBe(0);
  });

  it('bytes that are not UTF-8 in a form field, urlencoded or multipart', async () => {
    const message = 'The content field must be valid UTF-8 text.';
    const form = 'sender_number_id=1&to_phone=%2B15557654321&type=text&content=caf%E9';
    expect(await post(form, 'application/x-www-form-urlencoded')).toEqual([
      422,
      { message, errors: { content: [message] } },
    ]);
    const { bytes: body, contentType } = await encodeForm([
      ['sender_number_id', '1'],
      ['to_phone', '+15557654321'],
      ['type', 'document'],
      ['content', 'CAPTION'],
      ['media', new File(['%PDF-1.7'], 'a.pdf', { type: 'application/pdf' })],
    ]);
    const spoiled = Buffer.from(body.buffer).toString('latin1').replace('CAPTION', 'caf\xe9 \xed\xa0\x80');
    expect(await post(bytes(spoiled), contentType)).toEqual([422, { message, errors: { content: [message] } }]);
    expect(sandbox.counters.sendsStored).toBe(0);
  });
});

describe('POST /messages reads a body it cannot decode as no fields: the 422 of "required" messages', () => {
  const refused = (body: BodyInit, type?: string) =>
    expect(post(body, type)).resolves.toEqual([422, { message: expect.any(String), errors: NO_FIELDS }]);

  it('JSON that PHP cannot decode: a lone surrogate escape, bytes that are not UTF-8, a BOM, a syntax error, too deep', async () => {
    await refused(VALID_JSON.replace('"hi"', '"h\\ud800i"'), 'application/json');
    await refused(VALID_JSON.replace('"hi"', '"\\udfff"'), 'application/json');
    await refused(VALID_JSON.replace('"type"', '"ty\\ud83dpe"'), 'application/json');
    await refused(bytes(VALID_JSON.replace('"hi"', '"h\xffi"')), 'application/json');
    await refused(bytes(VALID_JSON.replace('"hi"', '"\xed\xa0\x80"')), 'application/json');
    await refused(bytes(`\xef\xbb\xbf${VALID_JSON}`), 'application/json');
    await refused(VALID_JSON.replace('"hi"', '"h\0i"'), 'application/json'); // a raw control character
    await refused(VALID_JSON.slice(0, -3), 'application/json');
    await refused(VALID_JSON.replace('}', `,"deep":${'['.repeat(600)}${']'.repeat(600)}}`), 'application/json');
    for (const notAnObject of ['[1,2]', '"text"', '42', 'null', 'true', ''])
      await refused(notAnObject, 'application/json');
    // A pair of halves is one emoji: stored as sent.
    const [status, body] = await post(VALID_JSON.replace('"hi"', '"\\ud83d\\ude00"'), 'application/json');
    expect([status, body.data.content]).toEqual([201, '\u{1f600}']);
  });

  it('multipart that does not parse whole, and a content type that is neither JSON nor a form', async () => {
    const part = '--b0\r\nContent-Disposition: form-data; name="type"\r\n\r\ntext\r\n';
    await refused(`${part}--b0--\r\n`, 'multipart/form-data');
    await refused(`${part}--b0--\r\n`, 'multipart/form-data; boundary=other');
    await refused(part, 'multipart/form-data; boundary=b0');
    await refused(part.slice(0, -8), 'multipart/form-data; boundary=b0');
    await refused('garbage', 'multipart/form-data; boundary=b0');
    await refused(VALID_JSON, 'text/plain');
    await refused(VALID_JSON, 'application/octet-stream');
    await refused(VALID_JSON);
  });
});

describe('valid sends are still stored as sent', () => {
  /** Well-formed text with no NUL: what the API stores. */
  const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => s.trim() === s && s !== '');

  it('any well-formed text as JSON content, and any caption and file name in multipart', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, fc.uint8Array({ maxLength: 64 }), async (content, name, file) => {
        const [status, body] = await post(
          JSON.stringify({ sender_number_id: 1, to_phone: '+15557654321', type: 'text', content }),
          'application/json',
        );
        expect([status, body.data.content]).toEqual([201, content]);
        const filename = `${name.replace(/%/g, '')}.pdf`;
        const form = await encodeForm([
          ['sender_phone', '+15550001001'],
          ['to_phone', '+15557654321'],
          ['type', 'document'],
          ['content', content],
          ['media', new File([file], filename, { type: 'application/pdf' })],
        ]);
        const [mediaStatus, media] = await post(form.bytes, form.contentType);
        expect(mediaStatus).toBe(201);
        expect(media.data.content).toBe(content);
        expect(media.data.request_payload.media).toEqual({
          original_name: filename,
          mime_type: 'application/pdf',
          size: file.length,
        });
        expect(sandbox.uploads.at(-1)?.bytes).toEqual(file);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the node:http server answers a request no fetch Request can stand for as the web server would', () => {
  /** Sends `line` and headers over a raw socket; resolves with the status line and body. */
  function raw(port: number, line: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('end', () => resolve(`${data.split('\r\n')[0]} ${data.split('\r\n\r\n')[1] ?? ''}`));
      socket.on('error', reject);
      socket.write(`${line}\r\nHost: x\r\nx-api-key: tm_test_acme_full\r\nConnection: close\r\n\r\n`);
    });
  }

  it('a TRACE is a 405, a target that is no URL a 400, and nothing reaches onError', async () => {
    // The server's own reports, not the process's console: files share their worker, and another
    // file's client may still print (a reconnect to a server it stopped).
    const reported: unknown[] = [];
    const running = await startSandbox({ onError: (error) => reported.push(error) });
    try {
      const port = Number(new URL(running.url).port);
      expect(await raw(port, 'TRACE /t/acme/api/v1/me HTTP/1.1')).toMatch(
        /^HTTP\/1\.1 405 .*The TRACE method is not supported/s,
      );
      for (const target of ['http://[::1', 'http://x:abc/', 'http://']) {
        expect(await raw(port, `GET ${target} HTTP/1.1`)).toMatch(/^HTTP\/1\.1 400 .*Bad Request\./s);
      }
      expect(await raw(port, 'GET /t/acme/api/v1/me HTTP/1.1')).toMatch(/^HTTP\/1\.1 200 /);
      expect(reported).toEqual([]);
    } finally {
      await running.close();
    }
  });
});
