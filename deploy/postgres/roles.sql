-- The listing database's two roles (docs/operations.md, "Database roles"):
--   listing_owner    owns the database and every object in it: migrations, imports, seeds and dumps run as it;
--   listing_serving  what the gateway instances connect as: it reads the listing and can change nothing, neither
--                    the schema (no CREATE, ALTER or DROP: it owns nothing) nor the data (SELECT only, and every
--                    transaction read-only by default).
-- Run it as a superuser, connected to the listing database, before the first migration or at any time after (a
-- restore, objects made by another role): it makes what is missing and grants again, and changes nothing else.
--
--   psql "postgresql://postgres@db-host:5432/listing" -v owner=listing_owner -v serving=listing_serving \
--     -f deploy/postgres/roles.sql
--
-- The names above are the defaults. Passwords are set apart (psql's \password, or ALTER ROLE ... PASSWORD) and never
-- written here.
\set ON_ERROR_STOP on
\if :{?owner}
\else
  \set owner listing_owner
\endif
\if :{?serving}
\else
  \set serving listing_serving
\endif
SELECT current_database() AS database \gset
SET client_min_messages = warning;

-- The roles, made when missing. Neither may make roles or databases, nor bypass row security.
SELECT format('CREATE ROLE %I LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS', name)
  FROM (VALUES (:'owner'), (:'serving')) AS wanted (name)
  WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = name) \gexec

-- The owner owns the database and its schema (it creates and alters tables, the migrations' own included).
ALTER DATABASE :"database" OWNER TO :"owner";
ALTER SCHEMA public OWNER TO :"owner";
-- Objects another role made (a database migrated as the superuser before these roles): the owner's now. A sequence
-- that belongs to a column follows its table.
SELECT format('ALTER %s %I.%I OWNER TO %I',
         CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END,
         n.nspname, c.relname, :'owner')
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND c.relowner <> :'owner'::regrole
    AND NOT EXISTS (SELECT FROM pg_depend d
                    WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')) \gexec
SELECT format('ALTER FUNCTION %s OWNER TO %I', p.oid::regprocedure, :'owner')
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = 'public' AND p.proowner <> :'owner'::regrole \gexec

-- Nobody else creates in the schema (PostgreSQL 15 and later already say so) or makes temporary tables.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE TEMPORARY ON DATABASE :"database" FROM PUBLIC;

-- The serving role: connect, and read every table, those the owner makes later included.
GRANT CONNECT ON DATABASE :"database" TO :"serving";
GRANT USAGE ON SCHEMA public TO :"serving";
GRANT SELECT ON ALL TABLES IN SCHEMA public TO :"serving";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public GRANT SELECT ON TABLES TO :"serving";
-- Belt and braces: each of its transactions is read-only unless it says otherwise.
ALTER ROLE :"serving" SET default_transaction_read_only = on;
