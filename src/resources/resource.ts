import type { Executor } from '../core/call/executor.js';

/** Base of the resource namespaces: each holds the client's executor and nothing else. */
export abstract class APIResource {
  /** @internal */
  protected readonly executor: Executor;

  /** @internal resources are mounted by `MessagingClient` */
  constructor(executor: Executor) {
    this.executor = executor;
  }
}
