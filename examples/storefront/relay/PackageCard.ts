// A storefront card as a Relay fragment, refetchable by id through `node` (the schema's Node interface).
import { graphql } from './graphql.js';

export const PackageCard = graphql`
  fragment PackageCard_package on Package @refetchable(queryName: "PackageCardRefetchQuery") {
    id
    title
    price
    urlSlug
    landscapeImage
    location {
      name
    }
    photographer {
      ...PhotographerBadge_photographer
    }
  }
`;
