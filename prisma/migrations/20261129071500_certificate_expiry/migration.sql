-- HTTP monitors warn certificate_expiry_days before their certificate expires. Existing rows (null) read as the default, 14.
ALTER TABLE "monitors" ADD COLUMN     "certificate_expiry_days" INTEGER;

-- The certificate each region's newest HTTPS check saw, for GetMonitorStatus.
ALTER TABLE "monitor_region_statuses" ADD COLUMN     "certificate" JSONB;

-- monitor.certificate_expiring belongs to no incident.
ALTER TABLE "alert_events" ALTER COLUMN "incident_id" DROP NOT NULL;

-- The warnings sent for a monitor's certificate, so each is sent once whichever control plane stores the result.
CREATE TABLE "certificate_warnings" (
    "monitor_id" TEXT NOT NULL,
    "chain_not_after" TIMESTAMP(3) NOT NULL,
    "stage" INTEGER NOT NULL,

    CONSTRAINT "certificate_warnings_pkey" PRIMARY KEY ("monitor_id")
);

ALTER TABLE "certificate_warnings" ADD CONSTRAINT "certificate_warnings_monitor_id_fkey" FOREIGN KEY ("monitor_id") REFERENCES "monitors"("id") ON DELETE CASCADE ON UPDATE CASCADE;
