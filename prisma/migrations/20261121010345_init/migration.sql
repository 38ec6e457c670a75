-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "package" (
    "id" UUID NOT NULL,
    "photographer_id" UUID NOT NULL,
    "active_website" UUID,
    "title" TEXT NOT NULL,
    "portrait_image" TEXT,
    "landscape_image" TEXT,
    "category" INTEGER NOT NULL,
    "category_name" TEXT NOT NULL,
    "tag_keywords" TEXT NOT NULL,
    "hours_of_coverage" DECIMAL(12,3),
    "number_of_photos_min" INTEGER,
    "number_of_photos_max" INTEGER,
    "days_to_delivery" INTEGER,
    "license_type" INTEGER NOT NULL,
    "description" TEXT NOT NULL,
    "whats_included" TEXT NOT NULL,
    "what_to_expect" TEXT NOT NULL,
    "price" DECIMAL(14,2) NOT NULL,
    "payment_schedule" DECIMAL(20,9),
    "deposit_fraction" DECIMAL(20,9),
    "deposit" DECIMAL(14,2) NOT NULL,
    "faqs" JSON NOT NULL DEFAULT '[]',
    "cancellation_policy" TEXT,
    "extension_policy" TEXT,
    "weather_policy" TEXT,
    "license_policy" TEXT,
    "weeks_available" JSON,
    "payment_schedule_policy" TEXT,
    "add_ons_policy" TEXT,
    "photo_uploaded" BOOLEAN NOT NULL,
    "latitude" DECIMAL(9,6) NOT NULL,
    "longitude" DECIMAL(9,6) NOT NULL,
    "location_name" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "photographer_email" TEXT NOT NULL,
    "contract_template" JSON,
    "questionnaire_template" JSON,
    "featured" BOOLEAN NOT NULL,
    "starting_at" BOOLEAN NOT NULL,
    "background_color" TEXT,
    "placeholder_message" TEXT NOT NULL,
    "mini_sessions" JSON,
    "video_url" TEXT NOT NULL,
    "show_calendar" BOOLEAN NOT NULL,
    "use_time_picker" BOOLEAN NOT NULL,
    "url_slug" TEXT NOT NULL,
    "featured_position" INTEGER,
    "show_on_marketplace" BOOLEAN NOT NULL,
    "hide_from_explore" BOOLEAN NOT NULL,
    "collection_item_id" JSON,
    "instant_booking" BOOLEAN NOT NULL,

    CONSTRAINT "package_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "listing_entry" (
    "position" INTEGER NOT NULL,
    "package_id" UUID NOT NULL,

    CONSTRAINT "listing_entry_pkey" PRIMARY KEY ("position")
);

-- CreateTable
CREATE TABLE "photographer" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "login" TEXT,
    "domain" TEXT,
    "next_custom_domain" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at_micros" INTEGER NOT NULL,
    "display_image" TEXT,
    "company_image" TEXT,
    "favicon_image" TEXT,
    "company_name" TEXT NOT NULL,
    "latitude" DECIMAL(9,6) NOT NULL,
    "longitude" DECIMAL(9,6) NOT NULL,
    "location_name" TEXT NOT NULL,
    "calendars_json" TEXT,
    "currency_code" TEXT NOT NULL,
    "currency_symbol" TEXT NOT NULL,
    "override_currency_code" TEXT,
    "override_currency_symbol" TEXT,
    "payments_onboard_completed" BOOLEAN NOT NULL,
    "free_plus_marketplace_plan" BOOLEAN NOT NULL,
    "payments_user_id" TEXT NOT NULL,
    "phone" TEXT,
    "background_color" TEXT,
    "display_font" TEXT,
    "secondary_font" TEXT,
    "font_color" TEXT,
    "tax_rate" DECIMAL(10,4) NOT NULL,
    "start_work_time" TEXT NOT NULL,
    "end_work_time" TEXT NOT NULL,
    "crm_organization_id" TEXT,
    "buffer" TEXT NOT NULL,
    "is_creator_only" BOOLEAN NOT NULL,
    "active_website" UUID,
    "designed_by_platform" BOOLEAN NOT NULL,
    "active_subscription_name" TEXT,
    "plan_external_website" BOOLEAN NOT NULL,

    CONSTRAINT "photographer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "review" (
    "id" UUID NOT NULL,
    "photographer_id" UUID NOT NULL,
    "rating" DECIMAL(4,1) NOT NULL,
    "url" TEXT NOT NULL,
    "number" INTEGER NOT NULL,

    CONSTRAINT "review_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "image" (
    "id" UUID NOT NULL,
    "image" TEXT NOT NULL,
    "thumbnail" TEXT,
    "mobile_thumbnail" TEXT,
    "preload" TEXT,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "image_title" TEXT,
    "filesize_mb" DECIMAL(12,2),

    CONSTRAINT "image_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "package_image" (
    "package_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "image_id" UUID NOT NULL,

    CONSTRAINT "package_image_pkey" PRIMARY KEY ("package_id","position")
);

-- CreateTable
CREATE TABLE "photographer_cover_image" (
    "photographer_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "image_id" UUID NOT NULL,

    CONSTRAINT "photographer_cover_image_pkey" PRIMARY KEY ("photographer_id","position")
);

-- CreateTable
CREATE TABLE "priority_tag" (
    "id" UUID NOT NULL,
    "tag" TEXT NOT NULL,
    "priority" INTEGER NOT NULL,

    CONSTRAINT "priority_tag_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "package_priority_tag" (
    "package_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "tag_id" UUID NOT NULL,

    CONSTRAINT "package_priority_tag_pkey" PRIMARY KEY ("package_id","position")
);

-- CreateTable
CREATE TABLE "simple_portfolio" (
    "id" UUID NOT NULL,
    "category" INTEGER NOT NULL,
    "bio" TEXT NOT NULL,

    CONSTRAINT "simple_portfolio_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "package_simple_portfolio" (
    "package_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "portfolio_id" UUID NOT NULL,

    CONSTRAINT "package_simple_portfolio_pkey" PRIMARY KEY ("package_id","position")
);

-- CreateTable
CREATE TABLE "add_on_template" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "price" DECIMAL(14,2) NOT NULL,
    "quantity" INTEGER NOT NULL,

    CONSTRAINT "add_on_template_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "linked_add_on" (
    "id" UUID NOT NULL,
    "package_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "template_id" UUID NOT NULL,

    CONSTRAINT "linked_add_on_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "social_site" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "icon" TEXT NOT NULL,

    CONSTRAINT "social_site_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "social" (
    "id" UUID NOT NULL,
    "photographer_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "url" TEXT NOT NULL,
    "social_site_id" UUID NOT NULL,

    CONSTRAINT "social_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "calendar_work_day" (
    "id" UUID NOT NULL,
    "photographer_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "work_times" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "shortcut" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL,

    CONSTRAINT "calendar_work_day_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "package_photographer_id_idx" ON "package"("photographer_id");

-- CreateIndex
CREATE UNIQUE INDEX "listing_entry_package_id_key" ON "listing_entry"("package_id");

-- CreateIndex
CREATE UNIQUE INDEX "review_photographer_id_key" ON "review"("photographer_id");

-- CreateIndex
CREATE UNIQUE INDEX "linked_add_on_package_id_position_key" ON "linked_add_on"("package_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "social_photographer_id_position_key" ON "social"("photographer_id", "position");

-- CreateIndex
CREATE UNIQUE INDEX "calendar_work_day_photographer_id_position_key" ON "calendar_work_day"("photographer_id", "position");

-- AddForeignKey
ALTER TABLE "package" ADD CONSTRAINT "package_photographer_id_fkey" FOREIGN KEY ("photographer_id") REFERENCES "photographer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "listing_entry" ADD CONSTRAINT "listing_entry_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "review" ADD CONSTRAINT "review_photographer_id_fkey" FOREIGN KEY ("photographer_id") REFERENCES "photographer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_image" ADD CONSTRAINT "package_image_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_image" ADD CONSTRAINT "package_image_image_id_fkey" FOREIGN KEY ("image_id") REFERENCES "image"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "photographer_cover_image" ADD CONSTRAINT "photographer_cover_image_photographer_id_fkey" FOREIGN KEY ("photographer_id") REFERENCES "photographer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "photographer_cover_image" ADD CONSTRAINT "photographer_cover_image_image_id_fkey" FOREIGN KEY ("image_id") REFERENCES "image"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_priority_tag" ADD CONSTRAINT "package_priority_tag_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_priority_tag" ADD CONSTRAINT "package_priority_tag_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "priority_tag"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_simple_portfolio" ADD CONSTRAINT "package_simple_portfolio_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "package_simple_portfolio" ADD CONSTRAINT "package_simple_portfolio_portfolio_id_fkey" FOREIGN KEY ("portfolio_id") REFERENCES "simple_portfolio"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "linked_add_on" ADD CONSTRAINT "linked_add_on_package_id_fkey" FOREIGN KEY ("package_id") REFERENCES "package"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "linked_add_on" ADD CONSTRAINT "linked_add_on_template_id_fkey" FOREIGN KEY ("template_id") REFERENCES "add_on_template"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "social" ADD CONSTRAINT "social_photographer_id_fkey" FOREIGN KEY ("photographer_id") REFERENCES "photographer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "social" ADD CONSTRAINT "social_social_site_id_fkey" FOREIGN KEY ("social_site_id") REFERENCES "social_site"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "calendar_work_day" ADD CONSTRAINT "calendar_work_day_photographer_id_fkey" FOREIGN KEY ("photographer_id") REFERENCES "photographer"("id") ON DELETE CASCADE ON UPDATE CASCADE;
