import type { Route } from '../../internal/requests/route.js';
import type { RequestTrace } from '../../types/diagnostics.js';
import { requestChannel } from '../channels.js';
import type { CallRecord } from './api-promise.js';

/** The call as one trace of `tenant-messaging:request`, in a subscriber's context if it gave one. */
export function tracedCall<T>(
  route: Route,
  serverAddress: string,
  record: CallRecord,
  work: () => Promise<T>,
): Promise<T> {
  const trace: RequestTrace = {
    endpoint: route.name,
    method: route.method,
    urlTemplate: route.template,
    serverAddress,
    attempts: 0,
    status: undefined,
    requestId: undefined,
  };
  const traced = async (): Promise<T> => {
    try {
      return await (trace.bindContext ? trace.bindContext(work) : work());
    } finally {
      trace.attempts = record.attempts;
      trace.status = record.status;
      trace.requestId = record.headers?.['x-request-id'];
    }
  };
  return requestChannel.tracePromise(traced, trace);
}
