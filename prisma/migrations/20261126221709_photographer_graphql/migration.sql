-- AlterTable
ALTER TABLE "photographer_document" ADD COLUMN     "graphql" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "graphql_part_lengths" INTEGER[] DEFAULT ARRAY[]::INTEGER[];
