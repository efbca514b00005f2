/** Types of simulated-hour.cjs (plain CommonJS so that jest runs it without a transform). */
import type { MessagingClient as Client } from 'tenant-messaging';
import type { createSandbox as CreateSandbox, SANDBOX_PHONES as Phones } from 'tenant-messaging/sandbox';

export interface HourSummary {
  readonly fakeMinutes: number;
  readonly polls: number;
  readonly pollGapsMs: number[];
  readonly requests: Record<string, number>;
}

export declare function simulatedHour(runner: {
  MessagingClient: typeof Client;
  createSandbox: typeof CreateSandbox;
  SANDBOX_PHONES: typeof Phones;
  advance: (ms: number) => Promise<unknown>;
  step: number;
}): Promise<HourSummary>;

export declare function settle<T>(
  promise: Promise<T>,
  advance: (ms: number) => Promise<unknown>,
  step: number,
  limit?: number,
): Promise<{ value: T; spent: number }>;

export declare const MINUTE: number;
export declare const HOUR: number;
