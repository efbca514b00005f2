/** The bins' Node floor, over every version: quiet from 22.19 on, one line naming both below it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oldNodeWarning, REQUIRED_NODE } from '../../src/index.js';

const version = fc.tuple(fc.nat(40), fc.nat(40), fc.nat(40));

describe('oldNodeWarning', () => {
  it('is undefined exactly from 22.19.0 on, and otherwise one line naming the version found and 22.19', () => {
    fc.assert(
      fc.property(version, ([major, minor, patch]) => {
        const text = `${major}.${minor}.${patch}`;
        const warning = oldNodeWarning('a-bin', text);
        const old = major < REQUIRED_NODE[0] || (major === REQUIRED_NODE[0] && minor < REQUIRED_NODE[1]);
        expect(warning).toBe(
          old
            ? `a-bin: Node.js ${text} is older than the 22.19 this command requires; some commands may fail. Install Node.js 22.19 or later.\n`
            : undefined,
        );
      }),
    );
    expect(oldNodeWarning('a-bin', '22.18.9')).toBeDefined();
    expect(oldNodeWarning('a-bin', '22.19.0')).toBeUndefined();
  });
});
