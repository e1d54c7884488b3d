-- The language a public page is written in unless the visitor asks for another.
ALTER TABLE "status_pages" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'en';
