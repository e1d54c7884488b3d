-- When an incident's postmortem was last written: the date of its entry in the page's feed.
ALTER TABLE "status_page_incidents" ADD COLUMN "postmortem_at" TIMESTAMP(3);
UPDATE "status_page_incidents" SET "postmortem_at" = "updated_at" WHERE "postmortem" <> '';
