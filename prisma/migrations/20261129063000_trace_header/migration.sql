-- HTTP monitors send a W3C traceparent header unless trace_header is false. Existing rows (null) keep the default, on.
ALTER TABLE "monitors" ADD COLUMN     "trace_header" BOOLEAN;

-- The trace id an HTTP check sent, answered as traceId by ListCheckResults (null for results without one).
ALTER TABLE "check_results" ADD COLUMN     "trace_id" TEXT;
