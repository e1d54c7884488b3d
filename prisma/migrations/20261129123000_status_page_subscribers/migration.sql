-- Pages take subscriptions unless their owner turns them off.
ALTER TABLE "status_pages" ADD COLUMN "subscriptions_enabled" BOOLEAN NOT NULL DEFAULT true;

-- Subscribers of a page, by email or webhook.
CREATE TABLE "status_page_subscribers" (
    "id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "email" TEXT,
    "webhook_url" TEXT,
    "webhook_secret" TEXT,
    "component_ids" TEXT[],
    "confirmed_at" TIMESTAMP(3),
    "confirm_token_hash" TEXT,
    "confirm_expires_at" TIMESTAMP(3),
    "unsubscribe_token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_page_subscribers_pkey" PRIMARY KEY ("id")
);

-- What subscribers are told, and to whom it was sent.
CREATE TABLE "status_page_notices" (
    "id" TEXT NOT NULL,
    "page_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "subject_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "link" TEXT NOT NULL,
    "component_ids" TEXT[],
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_page_notices_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "status_page_notice_deliveries" (
    "id" TEXT NOT NULL,
    "notice_id" TEXT NOT NULL,
    "subscriber_id" TEXT NOT NULL,
    "outcome" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "status_code" INTEGER,
    "error" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMP(3),

    CONSTRAINT "status_page_notice_deliveries_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "status_page_subscribers_confirm_token_hash_key" ON "status_page_subscribers"("confirm_token_hash");
CREATE UNIQUE INDEX "status_page_subscribers_unsubscribe_token_hash_key" ON "status_page_subscribers"("unsubscribe_token_hash");
CREATE UNIQUE INDEX "status_page_subscribers_page_id_email_key" ON "status_page_subscribers"("page_id", "email");
CREATE UNIQUE INDEX "status_page_subscribers_page_id_webhook_url_key" ON "status_page_subscribers"("page_id", "webhook_url");
CREATE INDEX "status_page_subscribers_page_id_created_at_id_idx" ON "status_page_subscribers"("page_id", "created_at", "id");
CREATE INDEX "status_page_notices_page_id_created_at_idx" ON "status_page_notices"("page_id", "created_at");
CREATE UNIQUE INDEX "status_page_notice_deliveries_notice_id_subscriber_id_key" ON "status_page_notice_deliveries"("notice_id", "subscriber_id");
CREATE INDEX "status_page_notice_deliveries_subscriber_id_idx" ON "status_page_notice_deliveries"("subscriber_id");
CREATE INDEX "status_page_notice_deliveries_outcome_created_at_idx" ON "status_page_notice_deliveries"("outcome", "created_at");

ALTER TABLE "status_page_subscribers" ADD CONSTRAINT "status_page_subscribers_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_notices" ADD CONSTRAINT "status_page_notices_page_id_fkey" FOREIGN KEY ("page_id") REFERENCES "status_pages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_notice_deliveries" ADD CONSTRAINT "status_page_notice_deliveries_notice_id_fkey" FOREIGN KEY ("notice_id") REFERENCES "status_page_notices"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "status_page_notice_deliveries" ADD CONSTRAINT "status_page_notice_deliveries_subscriber_id_fkey" FOREIGN KEY ("subscriber_id") REFERENCES "status_page_subscribers"("id") ON DELETE CASCADE ON UPDATE CASCADE;
