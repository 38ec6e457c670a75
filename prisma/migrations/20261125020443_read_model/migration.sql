-- CreateTable
CREATE TABLE "package_document" (
    "package_id" UUID NOT NULL,
    "v2_rest" TEXT NOT NULL,
    "lists" JSON NOT NULL,

    CONSTRAINT "package_document_pkey" PRIMARY KEY ("package_id")
);

-- CreateTable
CREATE TABLE "photographer_document" (
    "photographer_id" UUID NOT NULL,
    "v2" TEXT NOT NULL,

    CONSTRAINT "photographer_document_pkey" PRIMARY KEY ("photographer_id")
);

-- CreateTable
CREATE TABLE "read_model_state" (
    "id" INTEGER NOT NULL,
    "listing_version" BIGINT NOT NULL,
    "format" INTEGER NOT NULL,

    CONSTRAINT "read_model_state_pkey" PRIMARY KEY ("id")
);
