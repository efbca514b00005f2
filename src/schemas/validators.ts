/** Every runtime schema, as one lazily loaded module (see load.ts). */
export { messageLogEnvelopeSchema, messageLogSchema } from './message-log.js';
export { sendMessageParamsSchema } from './send.js';
