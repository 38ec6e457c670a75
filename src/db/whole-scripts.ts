// Migration scripts run whole on PostgreSQL. PrismaPg's executeScript splits a script at every ";" and sends the
// pieces one by one ("crude implementation for now", it says): a trigger function's plpgsql body, or a comment
// that holds a semicolon, comes apart into syntax errors, and a script that fails half-way stays half-applied.
// PostgreSQL's simple query protocol takes the whole script in one round trip and runs it as one implicit
// transaction, as Prisma's native schema engine and `psql -1` do. Written by hand: no adapter option does this.
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type pg from 'pg';

/** `factory`'s adapters, with each script sent whole on `pool` (the one the factory's adapters query). */
export function withWholeScripts(
  factory: SqlMigrationAwareDriverAdapterFactory,
  pool: pg.Pool,
): SqlMigrationAwareDriverAdapterFactory {
  const whole = (adapter: SqlDriverAdapter): SqlDriverAdapter => {
    // The adapter's own error path turns a PostgreSQL error into the engine's (its code, message and detail).
    const onError = (adapter as unknown as { onError(error: unknown): never }).onError.bind(adapter);
    adapter.executeScript = async (script: string) => {
      try {
        await pool.query(script);
      } catch (error) {
        onError(error);
      }
    };
    return adapter;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => whole(await factory.connect()),
    connectToShadowDb: async () => factory.connectToShadowDb(),
  };
}
