// `npm run api-key -- --name storefront [--scopes private]`: makes a new API key and prints it with the
// configuration entries that accept it. Only the entries (hashes) go into the configuration; the key itself is
// shown once, here, and stored nowhere.
import { newApiKey, SCOPES } from '../api-keys.js';
import { readArguments } from './arguments.js';

const USAGE = 'usage: npm run api-key -- --name NAME [--scopes private]';

function main(): number {
  let values: { name?: string; scopes?: string };
  try {
    ({ values } = readArguments(
      { options: { name: { type: 'string' }, scopes: { type: 'string', default: '' } } },
      USAGE,
    ));
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return 1;
  }
  const name = values.name ?? '';
  const scopes = (values.scopes ?? '').split(/[+,]/).filter(Boolean);
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
    console.error(`error: --name must be 1-64 letters, digits, _ . or - (${USAGE})`);
    return 1;
  }
  const unknown = scopes.find((scope) => !(SCOPES as readonly string[]).includes(scope));
  if (unknown) {
    console.error(`error: unknown scope ${JSON.stringify(unknown)}; known: ${SCOPES.join(', ')}`);
    return 1;
  }
  const { key, hash } = newApiKey();
  console.log(`key for ${name} (give it to the client as "Authorization: Bearer <key>"; it is not stored anywhere):`);
  console.log(`  ${key}`);
  console.log('entry for API_KEYS (GraphQL; comma-separate several):');
  console.log(`  ${name}:${scopes.join('+')}:${hash}`);
  console.log('entry for V2_API_KEYS (the v2 path, when it requires keys):');
  console.log(`  ${name}:${hash}`);
  return 0;
}

process.exitCode = main();
