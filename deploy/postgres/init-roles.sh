#!/bin/bash
# Run once by the postgres image when the primary's data directory is made (deploy/compose.yaml): the listing
# database's two roles (deploy/postgres/roles.sql), each given the database password of compose's one secret. On a
# primary made before, run roles.sql by hand once (docs/operations.md, "Database roles").
set -euo pipefail
password="$(cat /run/secrets/postgres-password)"
psql -v ON_ERROR_STOP=1 -q --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner=listing_owner -v serving=listing_serving -f /listing/roles.sql
psql -v ON_ERROR_STOP=1 -q --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" -v password="$password" <<'SQL'
ALTER ROLE listing_owner PASSWORD :'password';
ALTER ROLE listing_serving PASSWORD :'password';
SQL
