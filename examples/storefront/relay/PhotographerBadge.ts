// The photographer on a card, as a Relay fragment, refetchable by id through `node`.
import { graphql } from './graphql.js';

export const PhotographerBadge = graphql`
  fragment PhotographerBadge_photographer on Photographer @refetchable(queryName: "PhotographerBadgeRefetchQuery") {
    id
    name
    review {
      rating
      number
    }
  }
`;
