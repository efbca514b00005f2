/**
 * The payloads every bench server answers with and every client sends: one MessageLog as the
 * spec (section 2.1) shapes it, and the send parameters of a text message.
 */

/** The API key the bench servers accept (they do not check it; the clients send it as real ones do). */
export const API_KEY = 'tm_bench_key';

/** A recipient and a sender the sandbox accepts, for the polling bench. */
export const SENDER_PHONE = '+15550001001';
export const TO_PHONE = '+15557654321';

/**
 * A MessageLog with every field of spec section 2.1, `sent_at` in the service's format.
 * @param {number} id
 */
function messageLog(id) {
  return {
    id,
    sender_number_id: 1,
    recipient_user_id: 100_123,
    conversation_id: 501,
    message_id: 9000 + id,
    message_type: 'text',
    content: 'Your order #1042 has shipped.',
    status: 'sent',
    delivery_status: 'sent',
    request_payload: {
      sender_phone: SENDER_PHONE,
      to_phone: TO_PHONE,
      type: 'text',
      content: 'Your order #1042 has shipped.',
    },
    response_payload: { conversation_id: 501, message_id: 9000 + id, media_url: null },
    sent_at: '2026-11-21T10:00:00.000000Z',
  };
}

/** The `{ data: MessageLog }` envelope of GET /messages/{id} and POST /messages, serialized once. */
export const MESSAGE_LOG_BODY = Buffer.from(JSON.stringify({ data: messageLog(42) }));

/**
 * The envelope of the MessageLog `id`, for a server that answers each send with a log of its own
 * (as the API does: a client that remembers the ids it was answered holds one per send).
 * @param {number} id
 */
export const messageLogBody = (id) => Buffer.from(JSON.stringify({ data: messageLog(id) }));

/** The text send both clients make in the send throughput bench. */
export const TEXT_SEND = Object.freeze({
  sender_phone: SENDER_PHONE,
  to_phone: TO_PHONE,
  type: 'text',
  content: 'Your order #1042 has shipped.',
});

/** The headers a hand-written client sends: the ones the SDK sends, minus nothing. */
export const RAW_HEADERS = Object.freeze({
  accept: 'application/json',
  'user-agent': 'bench-raw/1.0',
  'x-api-key': API_KEY,
});

/** RAW_HEADERS plus the JSON content type of a POST. */
export const RAW_JSON_HEADERS = Object.freeze({ ...RAW_HEADERS, 'content-type': 'application/json' });
