// Coordinates put in the columns' form (src/listing/coordinates.ts): 6 decimals, rounded half away from zero on
// the digits themselves, from a number or a decimal text of any precision.
import { describe, expect, it } from 'vitest';
import { roundedDegrees } from '../../src/listing/coordinates.js';

describe('roundedDegrees', () => {
  it.each([
    ['48.8566', '48.856600'],
    ['48.85661234', '48.856612'],
    ['48.8566125', '48.856613'], // half away from zero, exactly (a float would read 48.856612499999...)
    ['-48.8566125', '-48.856613'],
    ['-0.0000004', '0.000000'], // no negative zero: one key for one point
    ['007', '7.000000'],
    ['89.9999995', '90.000000'],
    [48.85661234, '48.856612'],
    [-74.006, '-74.006000'],
    [5e-7, '0.000001'],
    [-4e-7, '0.000000'],
    [0, '0.000000'],
  ])('%j is %s', (given, expected) => {
    expect(roundedDegrees(given)).toBe(expected);
  });

  it.each([['1e3'], ['.5'], ['5.'], ['+5'], [' 5'], ['0x10'], [`1.${'0'.repeat(31)}`], [1e21], [Number.NaN]])(
    'refuses %j',
    (given) => {
      expect(roundedDegrees(given)).toBeUndefined();
    },
  );
});
