import ipaddr from "ipaddr.js";

// The host rules run in the console too, where node:net is not: ipaddr.js answers the same questions in both.

/** Dotted-quad IPv4 only, as node:net's isIPv4: "127.1" or "0x7f.0.0.1" are not addresses here. */
export const isIPv4 = (value: string): boolean => ipaddr.IPv4.isValidFourPartDecimal(value);

export const isIPv6 = (value: string): boolean => ipaddr.IPv6.isValid(value);

/** 4, 6 or 0, as node:net's isIP. */
export const isIP = (value: string): 0 | 4 | 6 => (isIPv4(value) ? 4 : isIPv6(value) ? 6 : 0);
