// Showcases: rare cases forced on the first photographers and packages, so a small set shows every edge.

import type { Mode } from './random.js';

export type PhotographerCase = 'rich' | 'sparse' | 'sharing' | 'endsAt24' | 'wholeSecond';
export type PackageCase =
  | 'rich'
  | 'sparse'
  | 'depositFraction'
  | 'paymentSchedule'
  | 'noDeposit'
  | 'emptySchedulePolicy'
  | 'crlf'
  | 'lineSeparator'
  | 'emoji';

export const PHOTOGRAPHER_SHOWCASE: Readonly<Record<number, readonly PhotographerCase[]>> = {
  0: ['rich', 'sharing'],
  1: ['sparse', 'endsAt24'],
  2: ['wholeSecond'],
  4: ['endsAt24', 'sharing'],
};

export const PACKAGE_SHOWCASE: Readonly<Record<number, readonly PackageCase[]>> = {
  0: ['rich'],
  1: ['sparse'],
  2: ['depositFraction', 'crlf'],
  3: ['paymentSchedule', 'emptySchedulePolicy'],
  4: ['noDeposit', 'lineSeparator'],
  5: ['emoji'],
};

export function modeOf(cases: readonly string[]): Mode {
  if (cases.includes('rich')) return 'rich';
  if (cases.includes('sparse')) return 'sparse';
  return 'random';
}
