-- AlterTable
ALTER TABLE "monitors" ADD COLUMN     "external_id" TEXT;

-- AlterTable
ALTER TABLE "notification_channels" ADD COLUMN     "external_id" TEXT;

-- AlterTable
ALTER TABLE "status_page_component_groups" ADD COLUMN     "external_id" TEXT;

-- AlterTable
ALTER TABLE "status_page_components" ADD COLUMN     "external_id" TEXT;

-- AlterTable
ALTER TABLE "status_pages" ADD COLUMN     "external_id" TEXT,
ADD COLUMN     "password_fingerprint" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "monitors_workspace_id_external_id_key" ON "monitors"("workspace_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "notification_channels_workspace_id_external_id_key" ON "notification_channels"("workspace_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_component_groups_page_id_external_id_key" ON "status_page_component_groups"("page_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "status_page_components_page_id_external_id_key" ON "status_page_components"("page_id", "external_id");

-- CreateIndex
CREATE UNIQUE INDEX "status_pages_workspace_id_external_id_key" ON "status_pages"("workspace_id", "external_id");
