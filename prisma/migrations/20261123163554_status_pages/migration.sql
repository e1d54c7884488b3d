-- CreateTable
CREATE TABLE "daily_result_counts" (
    "monitor_id" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "day" TIMESTAMP(3) NOT NULL,
    "successful" INTEGER NOT NULL DEFAULT 0,
    "degraded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "daily_result_counts_pkey" PRIMARY KEY ("monitor_id","region","day")
);

-- CreateTable
CREATE TABLE "status_pages" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "homepage_url" TEXT NOT NULL DEFAULT '',
    "contact_url" TEXT NOT NULL DEFAULT '',
    "icon" TEXT NOT NULL DEFAULT '',
    "custom_domain" TEXT,
    "access_type" TEXT NOT NULL DEFAULT 'public',
    "password_hash" TEXT,
    "auth_email_domains" TEXT[],
    "published" BOOLEAN NOT NULL DEFAULT true,
    "theme" TEXT NOT NULL DEFAULT 'system',
    "access_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "status_pages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_page_component_groups" (
    "id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "status_page_component_groups_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_page_components" (
    "id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "monitor_id" TEXT,
    "name" TEXT NOT NULL DEFAULT '',
    "description" TEXT NOT NULL DEFAULT '',
    "position" INTEGER NOT NULL DEFAULT 0,
    "group_id" TEXT,
    "group_order" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "status_page_components_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_page_sign_in_tokens" (
    "token_hash" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "expires_at" TIMESTAMP(3) NOT NULL,
    "used_at" TIMESTAMP(3),
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_page_sign_in_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_slug_key" ON "status_pages"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_custom_domain_key" ON "status_pages"("custom_domain");

-- CreateIndex
CREATE INDEX "status_pages_workspace_id_created_at_id_idx" ON "status_pages"("workspace_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "status_page_component_groups_page_id_created_at_id_idx" ON "status_page_component_groups"("page_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "status_page_components_page_id_position_created_at_idx" ON "status_page_components"("page_id", "position", "created_at");

-- CreateIndex
CREATE INDEX "status_page_components_monitor_id_idx" ON "status_page_components"("monitor_id");

-- CreateIndex
CREATE INDEX "status_page_components_group_id_idx" ON "status_page_components"("group_id");

-- CreateIndex
CREATE INDEX "status_page_sign_in_tokens_page_id_idx" ON "status_page_sign_in_tokens"("page_id");

-- AddForeignKey
ALTER TABLE "daily_result_counts" ADD CONSTRAINT "daily_result_counts_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_pages" ADD CONSTRAINT "status_pages_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_component_groups" ADD CONSTRAINT "status_page_component_groups_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_components" ADD CONSTRAINT "status_page_components_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_components" ADD CONSTRAINT "status_page_components_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_components" ADD CONSTRAINT "status_page_components_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "status_page_component_groups"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_page_sign_in_tokens" ADD CONSTRAINT "status_page_sign_in_tokens_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Days already counted by the hour (the last 15 days) start the 90-day bars.
INSERT INTO "daily_result_counts" ("monitor_id", "region", "day", "successful", "degraded", "failed")
SELECT "monitor_id", "region", date_trunc('day', "hour"), SUM("successful"), SUM("degraded"), SUM("failed")
FROM "result_counts"
GROUP BY "monitor_id", "region", date_trunc('day', "hour");
