-- CreateTable
CREATE TABLE "listing_version" (
    "id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "listing_version_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "package_url_slug_idx" ON "package"("url_slug");

-- CreateIndex
CREATE INDEX "package_category_idx" ON "package"("category");

-- CreateIndex
CREATE INDEX "package_price_id_idx" ON "package"("price", "id");

-- CreateIndex
CREATE INDEX "package_latitude_idx" ON "package"("latitude");

-- Full-text search over the words of the title, tag keywords and category name (PackageFilter.search). An
-- expression index, written here by hand: the Prisma schema cannot declare one. The expression must stay the
-- same as src/listing/filter.ts SEARCH_DOCUMENT for the index to be used.
CREATE INDEX "package_search_idx" ON "package" USING GIN (to_tsvector('simple', "title" || ' ' || "tag_keywords" || ' ' || "category_name"));
