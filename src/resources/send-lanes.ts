import type { LaneHooks, SendLanes } from '../core/call/executor.js';
import type { LaneKeys, Lanes } from '../core/rate/lanes.js';
import { loadedPhoneTools, loadPhoneTools, type PhoneTools } from '../internal/phones/phone.js';
import { senderKey } from '../internal/phones/sender-key.js';
import type { SendMessageParams } from '../types/send.js';

/**
 * The lanes of a checked send: its sender as given (`sender_phone`, else `sender_number_id`) and,
 * when recipients are paced, its recipient in canonical E.164 form. Synchronous once
 * libphonenumber-js is loaded (the client starts loading it when it is made); rejected, before
 * the send reaches a lane, with the error that says to install it when it is not there.
 */
export function sendLanesOf(
  params: SendMessageParams,
  lanes: Lanes,
  hooks: LaneHooks | undefined,
): SendLanes | Promise<SendLanes> {
  const sender = senderKey(params);
  const of = (tools: PhoneTools | undefined): SendLanes => {
    const keys: LaneKeys = { sender, recipient: tools?.canonical(params.to_phone) };
    return { keys, hooks };
  };
  if (!lanes.perRecipient) return of(undefined);
  const tools = loadedPhoneTools();
  return tools ? of(tools) : loadPhoneTools().then(of);
}
