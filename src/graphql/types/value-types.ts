// Small value types without a table of their own: Location, Dimensions, ClockTime, WorkTimeRange.
import { builder } from '../builder.js';

export interface LocationValue {
  latitude: string;
  longitude: string;
  locationName: string;
}

export const Location = builder.objectRef<LocationValue>('Location').implement({
  description: 'A place: coordinates and a label.',
  fields: (t) => ({
    latitude: t.field({
      type: 'Decimal',
      description: 'Latitude in degrees, 6 decimals.',
      resolve: (l) => l.latitude,
    }),
    longitude: t.field({
      type: 'Decimal',
      description: 'Longitude in degrees, 6 decimals.',
      resolve: (l) => l.longitude,
    }),
    name: t.string({ description: 'Place label, e.g. a city.', resolve: (l) => l.locationName }),
  }),
});

export const Dimensions = builder.objectRef<{ width: number; height: number }>('Dimensions').implement({
  description: 'Pixel size of an image.',
  fields: (t) => ({
    width: t.exposeInt('width', { description: 'Width in pixels.' }),
    height: t.exposeInt('height', { description: 'Height in pixels.' }),
  }),
});

export interface ClockTimeValue {
  hour: number;
  minute: number;
}

export const ClockTime = builder.objectRef<ClockTimeValue>('ClockTime').implement({
  description: 'A time of day (or a duration) as hour and minute. An end of day may read hour 24.',
  fields: (t) => ({
    hour: t.exposeInt('hour', { description: 'Hour, 0 to 24.' }),
    minute: t.exposeInt('minute', { description: 'Minute, 0 to 59.' }),
  }),
});

export const WorkTimeRange = builder
  .objectRef<{ start: ClockTimeValue; end: ClockTimeValue }>('WorkTimeRange')
  .implement({
    description: 'One stretch of working time within a day.',
    fields: (t) => ({
      start: t.field({ type: ClockTime, description: 'When it starts.', resolve: (r) => r.start }),
      end: t.field({ type: ClockTime, description: 'When it ends.', resolve: (r) => r.end }),
    }),
  });

/** Reads a stored `{"hour":9,"minute":0}` text. */
export function parseClockTime(text: string): ClockTimeValue {
  const { hour, minute } = JSON.parse(text) as ClockTimeValue;
  return { hour, minute };
}

/** Reads a stored `[{"start":"900","end":"1700"}]` text; clock times are HHMM integers as strings. */
export function parseWorkTimes(text: string): { start: ClockTimeValue; end: ClockTimeValue }[] {
  const hhmm = (value: string): ClockTimeValue => ({
    hour: Math.floor(Number(value) / 100),
    minute: Number(value) % 100,
  });
  return (JSON.parse(text) as { start: string; end: string }[]).map((range) => ({
    start: hhmm(range.start),
    end: hhmm(range.end),
  }));
}
