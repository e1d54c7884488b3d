-- AlterTable
ALTER TABLE "user_sessions" ADD COLUMN     "method" TEXT NOT NULL DEFAULT 'password';

-- CreateTable
CREATE TABLE "sso_settings" (
    "workspace_id" TEXT NOT NULL,
    "issuer_url" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "client_secret" TEXT,
    "allowed_domains" TEXT[],
    "default_role" TEXT NOT NULL,
    "role_claim" TEXT NOT NULL DEFAULT '',
    "role_mapping" JSONB NOT NULL DEFAULT '{}',
    "enforced" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "sso_settings_pkey" PRIMARY KEY ("workspace_id")
);

-- AddForeignKey
ALTER TABLE "sso_settings" ADD CONSTRAINT "sso_settings_workspace_id_fkey" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE CASCADE;
