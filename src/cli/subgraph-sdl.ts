// `npm run subgraph:sdl`: prints the gateway's Apollo Federation 2 subgraph schema (what `_service { sdl }`
// answers), for a schema registry or a composition step: `npm run -s subgraph:sdl > listing.graphql`.
import { subgraphSdl } from '../graphql/schema.js';

process.stdout.write(`${subgraphSdl()}\n`);
