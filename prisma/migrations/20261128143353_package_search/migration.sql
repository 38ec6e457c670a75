-- CreateTable
CREATE TABLE "package_search" (
    "package_id" UUID NOT NULL,
    "document" tsvector NOT NULL,

    CONSTRAINT "package_search_pkey" PRIMARY KEY ("package_id")
);

-- Written by hand from here to the index: what the Prisma schema cannot declare.
-- A package's search document (prisma/schema.prisma: PackageSearch). Weighted for ts_rank, title above tag
-- keywords above category name; its lexemes are those of to_tsvector over the three texts joined by spaces, which
-- package_search_idx indexed before, so a search matches what it matched.
CREATE FUNCTION "package_search_write"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "package_search" ("package_id", "document")
  SELECT "id", setweight(to_tsvector('simple', "title"), 'A') || setweight(to_tsvector('simple', "tag_keywords"), 'B')
    || setweight(to_tsvector('simple', "category_name"), 'C')
  FROM "written"
  ON CONFLICT ("package_id") DO UPDATE SET "document" = EXCLUDED."document"
    WHERE "package_search"."document" IS DISTINCT FROM EXCLUDED."document";
  RETURN NULL;
END $$;

-- Once per statement, over the rows it wrote: an import's batch of packages is one INSERT ... SELECT here. (A
-- trigger with transition tables fires on one event, hence two.) Deleted packages' documents go by the foreign key.
CREATE TRIGGER "package_search_on_insert" AFTER INSERT ON "package" REFERENCING NEW TABLE AS "written"
  FOR EACH STATEMENT EXECUTE FUNCTION "package_search_write"();
CREATE TRIGGER "package_search_on_update" AFTER UPDATE ON "package" REFERENCING NEW TABLE AS "written"
  FOR EACH STATEMENT EXECUTE FUNCTION "package_search_write"();
-- ALWAYS: the demo seed turns ordinary triggers off (session_replication_role = replica) to skip the foreign
-- keys' checks; these must fire all the same.
ALTER TABLE "package" ENABLE ALWAYS TRIGGER "package_search_on_insert";
ALTER TABLE "package" ENABLE ALWAYS TRIGGER "package_search_on_update";

-- The packages already stored.
INSERT INTO "package_search" ("package_id", "document")
SELECT "id", setweight(to_tsvector('simple', "title"), 'A') || setweight(to_tsvector('simple', "tag_keywords"), 'B')
  || setweight(to_tsvector('simple', "category_name"), 'C')
FROM "package";

-- The search reads package_search now (src/listing/filter.ts).
DROP INDEX "package_search_idx";

-- CreateIndex
CREATE INDEX "package_search_document_idx" ON "package_search" USING GIN ("document");

-- AddForeignKey
ALTER TABLE "package_search" ADD CONSTRAINT "package_search_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;
