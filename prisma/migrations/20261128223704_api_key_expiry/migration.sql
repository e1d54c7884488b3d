-- AlterTable
ALTER TABLE "api_keys" ADD COLUMN     "expires_at" TIMESTAMP(3),
ADD COLUMN     "last_used_at" TIMESTAMP(3);
