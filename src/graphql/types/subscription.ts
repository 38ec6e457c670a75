// The one subscription: `listingChanged`, told when this instance first sees a new listing version (an import
// committed), so an open storefront can fetch its page again. Served over Server-Sent Events (src/http/
// event-streams.ts). Its resolvers read nothing from the database: the change carries what it says.
import type { ListingChange } from '../../listing/version-watch.js';
import { builder } from '../builder.js';

/** A Date as the schema's other timestamps: ISO 8601 UTC with six fraction digits (a Date has three). */
const withMicroseconds = (date: Date) => date.toISOString().replace(/Z$/, '000Z');

const ListingChanged = builder.objectRef<ListingChange>('ListingChange').implement({
  description: 'The listing as it is after a change (an import that committed).',
  fields: (t) => ({
    version: t.exposeString('version', {
      description: 'The new listing version: answers made from an older one are out of date.',
    }),
    count: t.exposeInt('count', { description: 'Listed packages in this version.' }),
    changedAt: t.field({
      type: 'DateTime',
      description: 'When this instance first saw the new version.',
      resolve: (change) => withMicroseconds(change.changedAt),
    }),
  }),
});

builder.subscriptionType({
  description: 'Changes told as they happen, over Server-Sent Events (`Accept: text/event-stream`).',
  fields: (t) => ({
    listingChanged: t.field({
      type: ListingChanged,
      description:
        'An event each time the listing changes (once per import that commits), as this instance sees it: fetch the page again.',
      subscribe: (_root, _args, ctx) => ctx.listingFeed.subscribe(),
      resolve: (change) => change,
    }),
  }),
});
