// src/lifecycle.ts's watchFaults in this process: its listeners are called directly (emitting the events would
// reach the test runner's own), and removed after. Whatever was rejected or thrown, an Error or not, is logged
// with `err` and counted, and the logging never throws; an uncaught exception also asks to stop.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { processFaults, type StopReason, watchFaults } from '../src/lifecycle.js';
import { createLogger } from '../src/logger.js';

type Listener = (...args: unknown[]) => void;
const EVENTS = ['unhandledRejection', 'uncaughtException'] as const;
const listeners = (event: (typeof EVENTS)[number]): Listener[] =>
  (event === 'unhandledRejection' ? process.listeners(event) : process.listeners(event)) as Listener[];
const installed: [string, Listener][] = [];
afterEach(() => {
  for (const [event, listener] of installed.splice(0)) process.removeListener(event, listener);
});

function watch() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => (text += chunk));
  const stops: StopReason[] = [];
  const before = Object.fromEntries(EVENTS.map((event) => [event, listeners(event)]));
  watchFaults(createLogger({ level: 'info', destination: out }), (reason) => stops.push(reason));
  const added = Object.fromEntries(
    EVENTS.map((event) => {
      const listener = listeners(event).find((l) => !before[event]?.includes(l)) as Listener;
      installed.push([event, listener]);
      return [event, listener];
    }),
  ) as Record<(typeof EVENTS)[number], Listener>;
  const lines = () =>
    text
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; msg: string; err: { type: string; message: string } });
  return { ...added, lines, stops };
}

describe('watchFaults', () => {
  it('logs and counts every rejection, whatever was rejected, and never asks to stop', () => {
    const { unhandledRejection, lines, stops } = watch();
    const before = processFaults().unhandledRejections;
    const reasons = [
      new TypeError('at postgresql://u:secret@host/db'),
      'a string from redis://:secret@cache:6379',
      undefined,
      null,
      42,
      Symbol('s'),
      { password: 'secret' },
      Object.create(null),
      () => 'secret',
    ];
    for (const reason of reasons) unhandledRejection(reason, Promise.resolve());
    expect(processFaults().unhandledRejections - before).toBe(reasons.length);
    expect(stops).toEqual([]);
    const logged = lines();
    expect(logged.map((line) => line.level)).toEqual(reasons.map(() => 'error'));
    expect(logged.map((line) => line.err.message)).toEqual([
      'at postgresql://u:***@host/db',
      'not an Error: a string from redis://:***@cache:6379',
      'not an Error: undefined',
      'not an Error: null',
      'not an Error: 42',
      'not an Error: Symbol(s)',
      'not an Error: object (Object)',
      'not an Error: object (no prototype)',
      'not an Error: function (Function)',
    ]);
    expect(logged[0]?.err.type).toBe('TypeError');
    expect(JSON.stringify(logged)).not.toContain('secret');
  });

  it('logs an uncaught exception at fatal, counts it, and asks to stop', () => {
    const { uncaughtException, lines, stops } = watch();
    const before = processFaults().uncaughtExceptions;
    uncaughtException(new RangeError('out of range'), 'uncaughtException');
    expect(processFaults().uncaughtExceptions - before).toBe(1);
    expect(stops).toEqual(['uncaught exception']);
    expect(lines()).toMatchObject([{ level: 'fatal', err: { type: 'RangeError', message: 'out of range' } }]);
  });
});
