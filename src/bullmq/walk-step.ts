import type { MessagingClient } from '../client.js';
import type { SentParams } from '../types/send.js';
import { type WalkProgress, type WalkResult, walkPage } from './walk.js';

/**
 * One step of a reconcile walk: exactly one request (the processor runs one step per job start,
 * so the fleet's limiter counts every request). The first step resolves the sender number's id
 * when the send names its sender by phone (`GET /sender-numbers`); every other step reads one
 * page of `GET /messages` (see walk.ts).
 */
export async function walkStep(
  client: MessagingClient,
  params: SentParams,
  progress: WalkProgress,
  requestsPerSecond: number | undefined,
): Promise<{ readonly progress: WalkProgress } | { readonly result: WalkResult }> {
  if (params.sender_number_id === undefined && progress.senderId === undefined) {
    const numbers = await client.senderNumbers.list();
    const number = numbers.find((n) => n['phone'] === params.sender_phone);
    const id = number?.['id'];
    return { progress: { ...progress, senderId: typeof id === 'number' ? id : null } };
  }
  const page = await client.messages.list({ page: progress.page });
  return walkPage(progress, page, { params, requestsPerSecond, now: Date.now() });
}
