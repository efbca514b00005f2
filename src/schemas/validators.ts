/**
 * Every runtime schema, as one lazily loaded module (see load.ts), and the place the schemas'
 * messages are set up. zod/mini ships no messages ("Invalid input" for everything): load the
 * English ones, so ValidationError and ResponseValidationError say what was expected. This must
 * run in the module that is the chunk's entry: a bundler may drop a side effect anywhere else.
 */
import en from 'zod/v4/locales/en.js';
import { config } from './zod.js';

config(en());

export { messageLogSchema } from './message-log.js';
export { sendMessageParamsSchema } from './send.js';
