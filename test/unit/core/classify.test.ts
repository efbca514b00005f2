import {
  APIConnectionError,
  APITimeoutError,
  InternalServerError,
  ResponseValidationError,
  ValidationError,
} from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { classifyFailure, type FailureContext, mayHaveBeenProcessed } from '../../../src/core/call/classify.js';
import { BodyTooLargeError, DeadlineExceededError, NeverSentError } from '../../../src/core/transport/transport.js';
import { errorFromResponse } from '../../../src/error-from-response.js';
import { ME } from '../../helpers/answered.js';

const call: FailureContext = {
  label: 'GET /messages/{messageLog}',
  path: '/messages/7',
  method: 'GET',
  timeout: 250,
  signal: undefined,
};

const withCode = (code: string) => Object.assign(new Error(`connect ${code}`), { code });

describe('classifyFailure', () => {
  it("an aborted caller's signal wins, with its own reason, whatever the transport threw", () => {
    const controller = new AbortController();
    controller.abort('stop');
    expect(classifyFailure(new DeadlineExceededError(250), { ...call, signal: controller.signal })).toBe('stop');
    expect(classifyFailure(withCode('ECONNRESET'), { ...call, signal: controller.signal })).toBe('stop');
  });

  it('a passed deadline is an APITimeoutError naming the timeout, with the deadline as cause', () => {
    const cause = new DeadlineExceededError(250);
    const error = classifyFailure(cause, call) as APITimeoutError;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error.message).toMatch(/within 250 ms/);
    expect(error.cause).toBe(cause);
    expect(error.neverSent).toBe(false);
  });

  it('a deadline that passed before the request was handed to the HTTP client keeps neverSent', () => {
    const error = classifyFailure(new DeadlineExceededError(250, true), call) as APITimeoutError;
    expect(error.neverSent).toBe(true);
    expect(mayHaveBeenProcessed(error)).toBe(false);
  });

  it("the SDK's own errors pass through as they are", () => {
    const own = new ValidationError('Invalid send parameters', [{ path: 'media', message: 'failed' }]);
    expect(classifyFailure(own, call)).toBe(own);
    const status = errorFromResponse(503, '', {}, ME);
    expect(classifyFailure(status, call)).toBe(status);
  });

  it.each(['UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED'])(
    'an HTTP client refusal (%s) is a ValidationError',
    (code) => {
      const cause = withCode(code);
      const error = classifyFailure(cause, call) as ValidationError;
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.message).toMatch(/refused GET \/messages\/7 before sending it/);
      expect(error.cause).toBe(cause);
    },
  );

  it('an oversized body is a ResponseValidationError of the endpoint', () => {
    const error = classifyFailure(new BodyTooLargeError(200, {}), call) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.status).toBe(200);
    expect(error.message).toMatch(/GET \/messages\/\{messageLog\}/);
  });

  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'])(
    '%s: never connected, so neverSent',
    (code) => {
      const error = classifyFailure(withCode(code), call) as APIConnectionError;
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.neverSent).toBe(true);
      expect(mayHaveBeenProcessed(error)).toBe(false);
    },
  );

  it.each(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'whatever'])(
    '%s: the request may have left, so not neverSent',
    (code) => {
      const error = classifyFailure(withCode(code), call) as APIConnectionError;
      expect(error).toBeInstanceOf(APIConnectionError);
      expect(error.neverSent).toBe(false);
      expect(error.message).toMatch(new RegExp(`GET /messages/7: ${code}`));
      expect(mayHaveBeenProcessed(error)).toBe(true);
    },
  );

  it('a wrapped socket error is found down the cause chain', () => {
    const wrapped = new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') });
    expect((classifyFailure(wrapped, call) as APIConnectionError).neverSent).toBe(true);
  });

  it("Deno's fetch, which carries no code, names the connect phase: that is neverSent, and only that", () => {
    const deno = (detail: string) =>
      new TypeError('fetch failed', {
        cause: new Error(`error sending request for url (http://127.0.0.1:1/messages): ${detail}`),
      });
    const refused = deno('client error (Connect): tcp connect error: Connection refused (os error 111)');
    expect((classifyFailure(refused, call) as APIConnectionError).neverSent).toBe(true);
    const dns = deno('client error (Connect): dns error: failed to lookup address information');
    expect((classifyFailure(dns, call) as APIConnectionError).neverSent).toBe(true);
    const cut = deno('client error (SendRequest): connection closed before message completed');
    expect((classifyFailure(cut, call) as APIConnectionError).neverSent).toBe(false);
  });

  it('a NeverSentError is neverSent whatever its cause, unless the cause is an SDK error or a refused argument', () => {
    const never = classifyFailure(new NeverSentError(withCode('ECONNRESET')), call) as APIConnectionError;
    expect(never).toBeInstanceOf(APIConnectionError);
    expect(never.neverSent).toBe(true);
    expect(never.message).toMatch(/ECONNRESET/);
    const sdk = new ValidationError('bad media', []);
    expect(classifyFailure(new NeverSentError(sdk), call)).toBe(sdk);
    expect(classifyFailure(new NeverSentError(withCode('UND_ERR_INVALID_ARG')), call)).toBeInstanceOf(ValidationError);
  });
});

describe('mayHaveBeenProcessed', () => {
  it.each([
    [300, true],
    [303, true],
    [399, true],
    [400, false],
    [404, false],
    [408, true],
    [422, false],
    [429, false],
    [500, true],
    [599, true],
  ])('HTTP %i: %s', (status, expected) => {
    expect(mayHaveBeenProcessed(errorFromResponse(status, '', {}, ME))).toBe(expected);
  });

  it('is false for anything that is not a network or HTTP failure', () => {
    expect(mayHaveBeenProcessed(new ValidationError('x', []))).toBe(false);
    expect(mayHaveBeenProcessed(new Error('x'))).toBe(false);
    expect(mayHaveBeenProcessed(new InternalServerError(500, 'x', null, {}))).toBe(true);
  });
});
