import type { MessagingClient, SentParams } from '../../index.js';
import { needsSenderId, withSenderId } from '../../seam/reconcile-walk.js';
import { type WalkProgress, type WalkResult, walkPage } from './walk.js';

/**
 * One step of a reconcile walk: exactly one request, admitted by the fleet gate (the processor runs one
 * step per job start). The first step resolves the sender number's id
 * when the send names its sender by phone (`GET /sender-numbers`); every other step reads one
 * page of `GET /messages` (see walk.ts).
 */
export async function walkStep(
  client: MessagingClient,
  params: SentParams,
  progress: WalkProgress,
  requestsPerSecond: number | undefined,
): Promise<{ readonly progress: WalkProgress } | { readonly result: WalkResult }> {
  if (needsSenderId(progress, params)) {
    const numbers = await client.senderNumbers.list();
    const id = numbers.find((n) => n['phone'] === params.sender_phone)?.['id'];
    return { progress: withSenderId(progress, typeof id === 'number' ? id : undefined) };
  }
  const page = await client.messages.list({ page: progress.page });
  return walkPage(progress, page, { params, requestsPerSecond, now: Date.now() });
}
