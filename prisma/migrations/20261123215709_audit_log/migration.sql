-- CreateTable
CREATE TABLE "audit_entries" (
    "id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "workspace_id" TEXT NOT NULL,
    "actor_type" TEXT NOT NULL,
    "api_key_id" TEXT,
    "api_key_name" TEXT,
    "api_key_prefix" TEXT,
    "method" TEXT NOT NULL,
    "target_kind" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "changes" JSONB NOT NULL,

    CONSTRAINT "audit_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "audit_entries_workspace_id_at_idx" ON "audit_entries"("workspace_id", "at");

-- CreateIndex
CREATE INDEX "audit_entries_at_idx" ON "audit_entries"("at");
