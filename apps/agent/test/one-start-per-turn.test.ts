import { once } from "node:events";
import { createServer, connect, type AddressInfo, type Socket } from "node:net";
import { oneStartPerTurn } from "../src/one-start-per-turn";

describe("oneStartPerTurn", () => {
  it("starts items in the order handed, and reads sockets between two starts", async () => {
    // A loopback connection: what one start writes is in the other end's receive queue at once, so the event loop's
    // next poll reads it.
    const server = createServer();
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const client = connect((server.address() as AddressInfo).port, "127.0.0.1");
    const [accepted] = (await once(server, "connection")) as [Socket];
    await once(client, "connect");

    try {
      const events: string[] = [];
      let received = "";
      const allRead = new Promise<void>((done) =>
        accepted.on("data", (data) => {
          events.push(`read ${data}`);
          received += data;
          if (received.length === 3) done();
        }),
      );
      const start = oneStartPerTurn((item: string) => {
        events.push(`start ${item}`);
        client.write(item);
      });
      for (const item of ["a", "b", "c"]) start(item);
      expect(events).toEqual([]);
      // Waits for the bytes rather than for a time: a timer that fires between two turns on a busy machine would
      // look at the events before the loop had polled.
      await allRead;

      expect(events).toEqual(["start a", "read a", "start b", "read b", "start c", "read c"]);
    } finally {
      client.destroy();
      accepted.destroy();
      server.close();
    }
  });

  it("starts an item handed over after the others have started", async () => {
    const started: number[] = [];
    const start = oneStartPerTurn((item: number) => started.push(item));
    start(1);
    await new Promise((done) => setImmediate(done));
    start(2);
    start(3);
    // Two turns of the event loop, each waiting behind the start queued before it (a timer could fire between them on a busy machine).
    const turn = () => new Promise((done) => setImmediate(done));
    await turn();
    expect(started).toEqual([1, 2]);
    await turn();
    expect(started).toEqual([1, 2, 3]);
  });
});
