-- AlterTable
ALTER TABLE "photographer_document" ADD COLUMN     "graphql_parts" TEXT[] DEFAULT ARRAY[]::TEXT[];
