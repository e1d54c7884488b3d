-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "MonitorKind" AS ENUM ('http', 'tcp', 'dns');

-- CreateTable
CREATE TABLE "workspaces" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'free',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "workspaces_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "monitors" (
    "id" TEXT NOT NULL,
    "workspace_id" TEXT NOT NULL,
    "kind" "MonitorKind" NOT NULL,
    "name" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "periodicity" TEXT NOT NULL,
    "method" TEXT,
    "body" TEXT,
    "headers" JSONB NOT NULL DEFAULT '[]',
    "timeout_ms" INTEGER NOT NULL,
    "retry" INTEGER NOT NULL,
    "follow_redirects" BOOLEAN,
    "regions" TEXT[],
    "active" BOOLEAN NOT NULL,
    "public" BOOLEAN NOT NULL,
    "degraded_at_ms" INTEGER NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status_code_assertions" JSONB NOT NULL DEFAULT '[]',
    "body_assertions" JSONB NOT NULL DEFAULT '[]',
    "header_assertions" JSONB NOT NULL DEFAULT '[]',
    "record_assertions" JSONB NOT NULL DEFAULT '[]',
    "open_telemetry" JSONB,
    "status" TEXT NOT NULL DEFAULT 'unknown',
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "monitors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");

-- CreateIndex
CREATE INDEX "api_keys_workspace_id_idx" ON "api_keys"("workspace_id");

-- CreateIndex
CREATE INDEX "monitors_workspace_id_created_at_id_idx" ON "monitors"("workspace_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "monitors" ADD CONSTRAINT "monitors_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
