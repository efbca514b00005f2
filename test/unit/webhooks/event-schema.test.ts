/**
 * The webhook event's JSON Schema in docs/webhooks.md: it accepts the guide's own example and the
 * events the relays make (the relay tests check each event they receive against it), and it
 * refuses events that break it, so that it is a real contract and not decoration.
 */
import { describe, expect, it } from 'vitest';
import { eventSchema, guideJson } from '../../helpers/webhook-schema.js';

const example = {
  type: 'message.delivered',
  timestamp: '2026-11-25T04:00:00.000Z',
  data: { id: 'order-1042', log_id: 7, status: 'delivered', log: { id: 7, delivery_status: 'delivered' } },
};

describe('the webhook event schema (docs/webhooks.md)', () => {
  it("accepts the guide's example, and fields it does not know", () => {
    expect(guideJson('## The event')).toEqual(example);
    expect(eventSchema.safeParse(example).success).toBe(true);
    expect(eventSchema.safeParse({ ...example, later: 1, data: { ...example.data, more: true } }).success).toBe(true);
    const unknown = {
      type: 'message.unknown',
      timestamp: example.timestamp,
      data: { id: 'order-9', status: 'unknown', error: { name: 'SendOutcomeUnknownError', message: 'no answer' } },
    };
    expect(eventSchema.safeParse(unknown).success).toBe(true);
    const held = {
      type: 'message.quiet-hours',
      timestamp: example.timestamp,
      data: { id: 'order-9', status: 'quiet-hours', until: '2026-11-25T08:00:00.000Z' },
    };
    expect(eventSchema.safeParse(held).success).toBe(true);
  });

  it('refuses an event that breaks it', () => {
    for (const bad of [
      { ...example, type: 'message.opened' },
      { ...example, timestamp: 'yesterday' },
      { type: example.type, data: example.data },
      { ...example, data: { ...example.data, id: '' } },
      { ...example, data: { ...example.data, log_id: 7.5 } },
      { ...example, data: { id: 'order-1', status: 'bounced' } },
      { ...example, data: { ...example.data, log: { id: 7 } } },
      { ...example, data: { ...example.data, error: { name: 'X' } } },
      { ...example, data: { ...example.data, until: 'tomorrow' } },
    ]) {
      expect(eventSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});
