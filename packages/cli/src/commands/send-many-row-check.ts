/** A row of a send-many file checked as one `send`: its parameters, or the reason it cannot be sent. */
import type { SendMessageParams } from 'tenant-messaging';
import type { Row } from '../rows/rows.js';
import { sendParamsOf } from './messages.js';

const CONTENT = ['text', 'image', 'voice', 'document'] as const;

/** A row as `send`'s parameters, or the reason it cannot be sent (written next to it in the failed rows' file). */
export function checkRow(row: Row, from: string | undefined): { params: SendMessageParams } | { reason: string } {
  const { fields } = row;
  const kinds = CONTENT.filter((kind) => fields[kind] !== undefined);
  if (kinds.length !== 1) {
    return {
      reason: `UsageError: give exactly one of text, image, voice or document${kinds.length > 0 ? `, not ${kinds.join(' and ')}` : ' (all are empty)'}`,
    };
  }
  if (kinds[0] === 'text' && fields.caption !== undefined) {
    return { reason: 'UsageError: caption goes with image, voice or document, not with text' };
  }
  try {
    return {
      params: sendParamsOf({
        ...fields,
        from: fields.from ?? from ?? '',
        to: fields.to ?? '',
        timeout: '60s',
        interval: '2s',
      }),
    };
  } catch (error) {
    return { reason: reasonOf(error) };
  }
}

/** An error as one line, for a note and for the reason column. */
export const reasonOf = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message.replace(/\s*\n\s*/g, ' ')}` : String(error);
