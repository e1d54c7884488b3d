-- JSON body assertions of HTTP monitors (docs/checks.md): existing monitors have none
ALTER TABLE "monitors" ADD COLUMN "json_body_assertions" JSONB NOT NULL DEFAULT '[]';
