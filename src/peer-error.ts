import { MessagingError } from './messaging-error.js';

/**
 * Raised when a feature needs an optional peer dependency that is not installed (`code`
 * `peer.missing`): `peer` names the package and `install` the command that adds it; `cause` is
 * the runtime's own "cannot find".
 *
 * @example
 * ```ts
 * if (error instanceof MissingPeerError) console.error(`run: ${error.install}`) // 'npm install msw'
 * ```
 */
export class MissingPeerError extends MessagingError {
  /** The package to install, e.g. `msw` or `@opentelemetry/api`. */
  readonly peer: string;
  /** The command that installs it, e.g. `npm install --save-dev msw`. */
  readonly install: string;

  /**
   * @param message what needs it and how to install it, e.g. `sandboxHandlers() needs msw, …: run \`npm install --save-dev msw\``
   * @param peer the package, e.g. `msw`
   * @param install the command, e.g. `npm install --save-dev msw`
   * @param cause the runtime's own "cannot find"
   */
  constructor(message: string, peer: string, install: string, cause?: unknown) {
    super(message, { cause, code: 'peer.missing' });
    this.peer = peer;
    this.install = install;
  }
}
