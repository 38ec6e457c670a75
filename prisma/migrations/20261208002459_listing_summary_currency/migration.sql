-- AlterTable
ALTER TABLE "listing_summary" ADD COLUMN     "currency" BYTEA NOT NULL DEFAULT '\x',
ADD COLUMN     "currency_codes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "currency_symbols" TEXT[] DEFAULT ARRAY[]::TEXT[];
