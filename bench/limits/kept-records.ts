// Builds probe.doc: every listed package's v2 record as JSON text, made once with the bench floor's SQL.
// Run from the project root: BENCH_DATABASE_URL=... npx tsx bench/limits/kept-records.ts
import pg from 'pg';
import { PACKAGE as record } from '../floor-sql.js';

const pool = new pg.Pool({ connectionString: process.env.BENCH_DATABASE_URL });
const started = Date.now();
await pool.query('CREATE SCHEMA IF NOT EXISTS probe');
await pool.query('DROP TABLE IF EXISTS probe.doc');
await pool.query(`CREATE TABLE probe.doc AS SELECT le.position, row_to_json(r)::text AS record
  FROM listing_entry le JOIN package p ON p.id = le.package_id CROSS JOIN LATERAL (${record}) r`);
await pool.query('CREATE UNIQUE INDEX ON probe.doc (position)');
await pool.query('VACUUM ANALYZE probe.doc');
const { rows } = await pool.query(
  `SELECT count(*) AS records, pg_size_pretty(pg_total_relation_size('probe.doc')) AS size, avg(length(record))::int AS avg_chars FROM probe.doc`,
);
console.log(rows[0], `${((Date.now() - started) / 1000).toFixed(1)} s`);
await pool.end();
