-- CreateTable
CREATE TABLE "listing_summary" (
    "id" INTEGER NOT NULL,
    "listing_version" BIGINT NOT NULL,
    "words" TEXT[],
    "word_packages" INTEGER[],
    "category" BYTEA NOT NULL,
    "price_cents" BYTEA NOT NULL,
    "instant_booking" BYTEA NOT NULL,
    "featured" BYTEA NOT NULL,
    "photographer" BYTEA NOT NULL,
    "photographer_ids" TEXT[],
    "photographer_names" TEXT[],
    "categories" JSON NOT NULL,

    CONSTRAINT "listing_summary_pkey" PRIMARY KEY ("id")
);
