import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { AddressPolicy } from "@vigil/domain";
import { Deadline } from "../src/deadline";
import { TargetFailure } from "../src/errors";
import { connectToAny } from "../src/network";
import { loopback } from "./support/loopback";

describe("connectToAny's first attempt (where the connect phase begins)", () => {
  const policy = loopback.addressPolicy!;
  let port: number;
  const server = createServer((socket) => socket.destroy());
  let deadline: Deadline;

  beforeAll(async () => {
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => server.close());
  beforeEach(() => (deadline = new Deadline(5_000, undefined)));
  afterEach(() => deadline.dispose());

  it("is told once, after the address policy was asked and before the connection is made", async () => {
    const events: string[] = [];
    const asking = { permitted: (addresses: readonly string[]) => (events.push("policy asked"), policy.permitted(addresses)) } as AddressPolicy;
    const socket = await connectToAny(["127.0.0.1"], port, deadline, asking, () => events.push("first attempt"));
    events.push("connected");
    socket.destroy();
    expect(events).toEqual(["policy asked", "first attempt", "connected"]);
  });

  it("is told once when the first address fails and the next one is tried", async () => {
    const attempts: number[] = [];
    // Nothing listens on ::1 at this port, so the first address is refused and the second connects.
    const socket = await connectToAny(["::1", "127.0.0.1"], port, deadline, policy, () => attempts.push(1));
    socket.destroy();
    expect(attempts).toEqual([1]);
  });

  it("is not told when no address may be tried", async () => {
    const attempts: number[] = [];
    await expect(connectToAny(["127.0.0.1"], port, deadline, AddressPolicy.STRICT, () => attempts.push(1))).rejects.toBeInstanceOf(TargetFailure);
    expect(attempts).toEqual([]);
  });
});
