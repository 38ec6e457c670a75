// Imports a module as seen from this folder, so that a bare name is found in its node_modules (the ecosystem
// checks' tools) and resolved with the conditions of `import`: some of them (kubernetes-models) export nothing to
// `require`. Loaded with Node's own require, so that the import is Node's, not the test runner's.
module.exports = (specifier) => import(specifier);
