#!/bin/bash
# Run once by the postgres image when the primary's data directory is made: lets the standby stream from it.
set -euo pipefail
echo "host replication listing all scram-sha-256" >> "$PGDATA/pg_hba.conf"
