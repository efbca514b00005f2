import fc from 'fast-check';
import { MessagingClient, type SendMessageParams } from 'tenant-messaging';
import { createSandbox } from 'tenant-messaging/sandbox';
import { describe, expect, it } from 'vitest';

const sandbox = createSandbox();
const acme = sandbox.tenants['acme'];
if (!acme) throw new Error('no acme tenant');
const client = new MessagingClient({ baseUrl: acme.baseUrl, apiKey: acme.keys.full, fetch: sandbox.fetch });

/** A reachable recipient: 7 to 14 digits that do not end in 0000. */
const recipient = fc.stringMatching(/^\+1[0-9]{6,13}$/).filter((phone) => !phone.endsWith('0000'));
/** Who sends: by phone or by id, one of acme's two active numbers. */
const sender = fc.oneof(
  fc.constantFrom('+15550001001', '+15550001002').map((phone) => ({ sender_phone: phone })),
  fc.constantFrom(1, 2).map((id) => ({ sender_number_id: id })),
);
const content = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }).filter((s) => s.trim() !== '');
const MEDIA = {
  image: { filename: 'photo.png', type: 'image/png' },
  voice: { filename: 'note.ogg', type: 'audio/ogg' },
  document: { filename: 'invoice.pdf', type: 'application/pdf' },
} as const;

describe('request_payload', () => {
  it('echoes the fields sent, for text and media sends, and describes a file by name, type and size, never its bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        sender,
        recipient,
        fc.option(content, { nil: undefined }),
        fc.option(fc.constantFrom('image', 'voice', 'document'), { nil: undefined }),
        fc.integer({ min: 1, max: 4096 }),
        async (from, to_phone, text, mediaType, size) => {
          const sent: Record<string, unknown> = {
            ...from,
            to_phone,
            type: mediaType ?? 'text',
            ...(mediaType === undefined ? { content: text ?? 'x' } : text !== undefined && { content: text }),
          };
          const media = mediaType && MEDIA[mediaType];
          const bytes = new Uint8Array(size).fill(0x41);
          const log = await client.messages.send({
            ...sent,
            ...(media && { media: new File([bytes], media.filename, { type: media.type }) }),
          } as SendMessageParams);
          // A multipart body carries text only: Laravel's validated() echoes the id as "1", so does the sandbox.
          const expected = media
            ? {
                ...sent,
                ...('sender_number_id' in from && { sender_number_id: String(from.sender_number_id) }),
                media: { original_name: media.filename, mime_type: media.type, size },
              }
            : sent;
          expect(log.request_payload).toEqual(expected);
          expect(JSON.stringify(log.request_payload).length).toBeLessThan(600);
          expect((await client.messages.get(log.id)).request_payload).toEqual(expected);
        },
      ),
      { seed: 4242, numRuns: 60 },
    );
  });
});
