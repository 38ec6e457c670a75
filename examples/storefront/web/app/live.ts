// Told when the listing changes: `listingChanged` over Server-Sent Events (the browser's EventSource). Each event
// names the new listing version; every request after it carries that version (api.ts), and the page fetches what
// it shows again. When the gateway ends the stream (it is stopping), the page subscribes again after a second
// and fetches once, since a change may have come in between.
import { StorefrontListingChangedDocument, type StorefrontListingChangedSubscription } from '../generated/graphql.js';
import { streamUrl, useListingVersion } from './api.js';

type Change = StorefrontListingChangedSubscription['listingChanged'];

/** Calls `onChange` with each change as it is told, and with null after a stream was ended and opened again. */
export function watchListing(onChange: (change: Change | null) => void): void {
  const source = new EventSource(streamUrl(StorefrontListingChangedDocument));
  source.addEventListener('next', (event) => {
    const { data } = JSON.parse((event as MessageEvent<string>).data) as {
      data?: StorefrontListingChangedSubscription;
    };
    if (!data) return;
    useListingVersion(data.listingChanged.version);
    onChange(data.listingChanged);
  });
  source.addEventListener('complete', () => {
    source.close();
    setTimeout(() => {
      watchListing(onChange);
      onChange(null);
    }, 1000);
  });
}
