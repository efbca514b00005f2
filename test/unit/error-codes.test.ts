/**
 * Every code is reachable and means one thing: the sample of each code (made as a user meets it)
 * carries that code, every code of `ERROR_CODES` has a sample, and every SDK message of them is
 * one or more whole lines with no control character but the new line.
 */
import { ERROR_CODES, MessagingError } from 'tenant-messaging';
import { describe, expect, it } from 'vitest';
import { ERROR_MEANINGS } from '../helpers/error-meanings.js';
import { errorOfEveryCode } from '../helpers/error-samples.js';

describe('error codes', () => {
  it('each sample carries the code it stands for, and every code has one', async () => {
    const samples = await errorOfEveryCode();
    expect(Object.keys(samples).sort()).toEqual([...ERROR_CODES].sort());
    for (const [code, error] of Object.entries(samples)) {
      expect(error, code).toBeInstanceOf(MessagingError);
      expect(error.code, error.message).toBe(code);
      expect(error.message.replaceAll('\n', ' '), code).not.toMatch(/\p{Cc}/u);
      expect(error.message.trim(), code).not.toBe('');
    }
  });

  it('every code is documented in one line, in the form area.name', () => {
    expect(Object.keys(ERROR_MEANINGS).sort()).toEqual([...ERROR_CODES].sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    for (const [code, meaning] of Object.entries(ERROR_MEANINGS)) {
      expect(code).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(meaning).toMatch(/^[A-Z].*\.$/);
      expect(meaning).not.toContain('\n');
    }
  });
});
