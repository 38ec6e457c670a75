// The per-request GraphQL context: a fresh set of DataLoaders for every request, never shared.
import type { Loaders } from './loaders.js';

export interface Context {
  loaders: Loaders;
}
