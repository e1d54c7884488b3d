import { create, toJsonString, type MessageInitShape } from "@bufbuild/protobuf";
import { DNSMonitorSchema, HTTPMonitorSchema, ListMonitorsResponseSchema, TCPMonitorSchema, type ListMonitorsResponse } from "@vigil/proto";
import { monitorJsonWriters } from "../src/monitors/monitor-json";

const options = { alwaysEmitImplicit: true };
const http = (name: string) => create(HTTPMonitorSchema, { id: name, name, url: `https://${name}.example.com` });
const tcp = (name: string) => create(TCPMonitorSchema, { id: name, name, uri: `${name}.example.com:443` });
const dns = (name: string) => create(DNSMonitorSchema, { id: name, name, uri: `${name}.example.com` });
const page = (parts: MessageInitShape<typeof ListMonitorsResponseSchema>) => create(ListMonitorsResponseSchema, parts);

describe("ListMonitors answers written from the monitors' kept JSON", () => {
  const write = monitorJsonWriters(options)[ListMonitorsResponseSchema.typeName]! as (response: ListMonitorsResponse, o: object) => string | Uint8Array;
  const text = (answer: string | Uint8Array) => (typeof answer === "string" ? answer : Buffer.from(answer).toString("utf8"));
  const expectWritten = (response: ListMonitorsResponse) => expect(text(write(response, options))).toBe(toJsonString(ListMonitorsResponseSchema, response, options));

  it("writes what toJsonString writes for a page asked again, and for every way a page can differ from the last one", () => {
    const [a, b, c] = [http("a"), http("b"), http("c")];
    const t = tcp("t");
    const d = dns("d");
    const asked = page({ httpMonitors: [a, b], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 });
    expectWritten(asked);
    // The same messages in new arrays, as every call makes them.
    expectWritten(page({ httpMonitors: [a, b], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }));
    // A monitor changed: its message is a new object.
    expectWritten(page({ httpMonitors: [a, http("b")], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }));
    expect(text(write(page({ httpMonitors: [a, create(HTTPMonitorSchema, { ...b, name: "b, renamed" })], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }), options))).toContain('"b, renamed"');
    // Another monitor created elsewhere in the workspace: only the total moved.
    expectWritten(page({ httpMonitors: [a, b], tcpMonitors: [t], dnsMonitors: [d], totalSize: 5 }));
    // The same first monitor, a shorter page (another limit), one more of another kind, the order changed.
    expectWritten(page({ httpMonitors: [a], totalSize: 4 }));
    expectWritten(page({ httpMonitors: [a, b], tcpMonitors: [t], dnsMonitors: [d, dns("e")], totalSize: 4 }));
    expectWritten(page({ httpMonitors: [a, c], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }));
    expectWritten(page({ httpMonitors: [c, a], tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }));
    // Pages that start with another kind, and an empty page.
    expectWritten(page({ tcpMonitors: [t], dnsMonitors: [d], totalSize: 4 }));
    expectWritten(page({ dnsMonitors: [d], totalSize: 4 }));
    expectWritten(page({ totalSize: 4 }));
    expectWritten(asked);
  });

  it("answers a page asked again as its UTF-8 bytes, made once, and a page asked the first time as text", () => {
    const monitors = { httpMonitors: [http("x"), create(HTTPMonitorSchema, { id: "y", name: "ÿ, ☃ and 🐙", url: "https://y.example.com" })], totalSize: 2 };
    const first = write(page(monitors), options);
    expect(typeof first).toBe("string");
    const again = write(page(monitors), options);
    expect(again).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(again as Uint8Array).equals(Buffer.from(first as string, "utf8"))).toBe(true);
    expect(write(page(monitors), options)).toBe(again);
  });
});
