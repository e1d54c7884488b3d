import { regionCodec } from "@vigil/domain/proto/enums";
import type { Region } from "@vigil/proto";

/** A region by its id (hostA-ams), as the API, the CLI and the docs write it. */
export const regionName = (region: Region): string => String(regionCodec.decode(region) ?? "unknown");

export const regionsText = (regions: readonly Region[]): string => regions.map(regionName).join(", ") || "—";
