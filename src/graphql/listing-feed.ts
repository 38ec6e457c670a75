// What `listingChanged` subscribers read: the instance's version watch (src/listing/version-watch.ts) published on
// a graphql-yoga pubsub. The feed listens to the watch only while a subscriber is there (the watch itself reads
// all the time: the instance reads ahead for each new version); its pubsub listeners are counted on the event
// target the pubsub dispatches on. A subscriber that comes within an interval of an import may be told of it.
import { createPubSub, type Repeater } from 'graphql-yoga';
import type { ListingChange, VersionWatch } from '../listing/version-watch.js';

const TOPIC = 'listingChanged';

export interface ListingFeed {
  /** The changes from now on; ends when its consumer returns it (a stream closed). */
  subscribe(): Repeater<ListingChange>;
  /** Subscribers listening now. */
  subscribers(): number;
}

/** An EventTarget that calls `onCount` with the number of listeners after each one is added or removed. */
class CountedTarget extends EventTarget {
  #count = 0;
  constructor(private readonly onCount: (count: number) => void) {
    super();
  }
  override addEventListener(...args: Parameters<EventTarget['addEventListener']>): void {
    super.addEventListener(...args);
    this.onCount(++this.#count);
  }
  override removeEventListener(...args: Parameters<EventTarget['removeEventListener']>): void {
    super.removeEventListener(...args);
    this.onCount(--this.#count);
  }
  get count(): number {
    return this.#count;
  }
}

export function listingFeed(watch: Pick<VersionWatch, 'subscribe'>): ListingFeed {
  let unwatch: (() => void) | undefined;
  const target = new CountedTarget((count) => {
    if (count > 0 && !unwatch) unwatch = watch.subscribe((change) => pubsub.publish(TOPIC, change));
    else if (count === 0 && unwatch) {
      unwatch();
      unwatch = undefined;
    }
  });
  // No shared repeaterBuffer: yoga hands the one given to every subscriber's repeater. Changes come one per
  // import, so what waits for a stalled client stays small.
  const pubsub = createPubSub<{ [TOPIC]: [ListingChange] }>({ eventTarget: target });
  return {
    subscribe: () => pubsub.subscribe(TOPIC),
    subscribers: () => target.count,
  };
}
