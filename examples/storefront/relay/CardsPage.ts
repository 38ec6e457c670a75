// A page of cards, each spread from its fragment.
import { graphql } from './graphql.js';

export const CardsPage = graphql`
  query CardsPageQuery($seed: Int) {
    packages(limit: 24, seed: $seed) {
      count
      seed
      results {
        ...PackageCard_package
      }
    }
  }
`;
