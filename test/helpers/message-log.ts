/**
 * A MessageLog as the service sends it (spec section 2.1), with overrides: what the test server
 * (server.ts) and the in-process fake service (fake-service.ts) answer alike.
 *
 * @example
 * ```ts
 * messageLog({ id: 7, delivery_status: 'read' })
 * ```
 */
export function messageLog(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 42,
    sender_number_id: 1,
    recipient_user_id: 7,
    conversation_id: 3,
    message_id: 9001,
    message_type: 'text',
    content: 'Hello',
    status: 'sent',
    delivery_status: 'sent',
    request_payload: { to_phone: '+15550000002', type: 'text' },
    response_payload: { conversation_id: 3, message_id: 9001, media_url: null },
    sent_at: '2026-11-21T10:00:00.000000Z',
    ...overrides,
  };
}
