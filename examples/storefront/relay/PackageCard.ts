// A storefront card as a Relay fragment, refetchable by id through `node` (the schema's Node interface). The
// price is Money (the amount with its currency, for Intl.NumberFormat); cardImage is a card-sized file with its
// size (the space to reserve before it loads) and alt text.
import { graphql } from './graphql.js';

export const PackageCard = graphql`
  fragment PackageCard_package on Package @refetchable(queryName: "PackageCardRefetchQuery") {
    id
    title
    priceMoney {
      amount
      currencyCode
    }
    urlSlug
    cardImage {
      url
      width
      height
      alt
    }
    location {
      name
    }
    photographer {
      ...PhotographerBadge_photographer
    }
  }
`;
