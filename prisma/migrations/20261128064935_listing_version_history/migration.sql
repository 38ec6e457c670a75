-- CreateTable
CREATE TABLE "listing_version_history" (
    "seq" BIGSERIAL NOT NULL,
    "version" BIGINT NOT NULL,
    "committed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "listing_version_history_pkey" PRIMARY KEY ("seq")
);

-- The version current now is the first one recorded, so the next version written has one before it.
INSERT INTO "listing_version_history" ("version") SELECT "version" FROM "listing_version" WHERE "id" = 1;
