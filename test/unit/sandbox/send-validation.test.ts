import { createSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';
import { PNG } from '../../helpers/png.js';

const sandbox = createSandbox({ maxMediaBytes: 2048 });
const url = `${sandbox.tenants['acme']?.baseUrl}/api/v1/messages`;

/** POSTs a multipart form and returns the status and JSON body. */
async function postForm(fields: Record<string, string | Blob>, filename = 'file.bin') {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, value, filename);
  }
  const res = await sandbox.fetch(url, {
    method: 'POST',
    headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full' },
    body: form,
  });
  return [res.status, await res.json()] as const;
}

const base = { sender_number_id: '1', to_phone: '+15557654321' };

describe('POST /messages validation (multipart)', () => {
  it('accepts a document by sender_number_id as a string, as a form sends it', async () => {
    const [status, body] = await postForm(
      { ...base, type: 'document', media: new Blob(['%PDF-1.7'], { type: 'application/pdf' }) },
      'a.pdf',
    );
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ message_type: 'document', content: null, sender_number_id: 1 });
  });

  it('reports each broken rule in Laravel wording', async () => {
    expect(await postForm({ ...base, sender_number_id: 'x', type: 'image', media: 'not a file' })).toEqual([
      422,
      {
        message: 'The sender number id field must be an integer. (and 1 more error)',
        errors: {
          sender_number_id: ['The sender number id field must be an integer.'],
          media: ['The media field must be a file.'],
        },
      },
    ]);
    const [, wrongType] = await postForm(
      { ...base, type: 'image', media: new Blob(['x'], { type: 'text/plain' }) },
      'a.txt',
    );
    expect(wrongType.errors.media).toEqual([
      'The media field must be a file of type: jpg, jpeg, png, gif, webp, heic.',
    ]);
    const [, tooBig] = await postForm({ ...base, type: 'document', media: new Blob([new Uint8Array(4096)]) });
    expect(tooBig.errors.media).toEqual(['The media field must not be greater than 2 kilobytes.']);
    const [, textWithMedia] = await postForm({ ...base, type: 'text', content: 'hi', media: new Blob([PNG]) }, 'a.png');
    expect(textWithMedia.errors).toEqual({ media: ['The media field is prohibited when type is text.'] });
    const [, both] = await postForm({ ...base, sender_phone: '+15550001001', type: 'text', content: 'hi' });
    expect(both.errors).toEqual({
      sender_phone: ['The sender phone field prohibits sender number id from being present.'],
    });
    const [, unknownSender] = await postForm({ ...base, sender_number_id: '99', type: 'text', content: 'hi' });
    expect(unknownSender.errors).toEqual({ sender_number_id: ['The selected sender number id is invalid.'] });
    const [, globexNumber] = await postForm({ ...base, sender_number_id: '4', type: 'text', content: 'hi' });
    expect(globexNumber.errors).toEqual({ sender_number_id: ['The selected sender number id is invalid.'] });
    const [, badPhone] = await postForm({ ...base, to_phone: 'call me', type: 'text', content: 'hi' });
    expect(badPhone.errors).toEqual({ to_phone: ['The to phone field format is invalid.'] });
  });

  it('reads a body that is not JSON as no fields at all', async () => {
    const res = await sandbox.fetch(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'x-api-key': 'tm_test_acme_full', 'content-type': 'application/json' },
      body: '{"to_phone":',
    });
    expect(res.status).toBe(422);
    expect((await res.json()).message).toBe(
      'The sender phone field is required when sender number id is not present. (and 3 more errors)',
    );
  });
});
