import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * A TCP proxy on loopback in front of a server (PostgreSQL), which the test
 * can cut: open connections are dropped and new ones refused, as when the
 * server goes down, without stopping the server other tests share.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private cut: "refuse" | "hang" | undefined;

  private constructor(private readonly server: Server) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server);
    server.on("connection", (client) => proxy.accept(client, targetHost, targetPort));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  /**
   * Drops every connection until restore(). New ones are refused, or with
   * "hang" accepted and never answered, as by a host gone silent.
   */
  cutOff(mode: "refuse" | "hang" = "refuse"): void {
    this.cut = mode;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.cut = undefined;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cutOff();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket, host: string, port: number): void {
    if (this.cut) {
      if (this.cut === "refuse") client.destroy();
      else this.sockets.add(client.on("error", () => {}).on("close", () => this.sockets.delete(client)));
      return;
    }
    const upstream = connect(port, host);
    for (const [socket, other] of [[client, upstream], [upstream, client]] as const) {
      this.sockets.add(socket);
      socket.on("error", () => other.destroy());
      socket.on("close", () => {
        this.sockets.delete(socket);
        other.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}
