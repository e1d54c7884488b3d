import { AddressPolicy } from "@vigil/domain";
import type { CheckEnvironment } from "../../src/types";

/**
 * What these tests' targets need: they all listen on loopback, which the SSRF
 * guard refuses by default. As a deployment with ALLOW_PRIVATE_TARGETS=true.
 */
export const loopback: CheckEnvironment = { addressPolicy: new AddressPolicy({ allowPrivateTargets: true, allowedTargetCidrs: [] }) };
