/**
 * A send's sender as its lane names it: `sender_number_id` as given, or `sender_phone` as `+` and
 * its digits (spacing and punctuation never make two senders). One number given once by phone and
 * once by id is two senders: the SDK cannot tell them one without asking the service.
 *
 * @example
 * ```ts
 * senderKey({ sender_phone: '+1 (555) 000-1001' }) // 'phone:+15550001001'
 * ```
 */
export function senderKey(params: {
  readonly sender_phone?: string | undefined;
  readonly sender_number_id?: number | undefined;
}): string {
  const phone = params.sender_phone;
  return phone === undefined ? `id:${params.sender_number_id}` : `phone:+${phone.replace(/\D+/g, '')}`;
}
