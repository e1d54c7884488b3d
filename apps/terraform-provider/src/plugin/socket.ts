import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PluginSocket {
  path: string;
  /** Hands every connection, those that arrived before too, to `server` (the TLS server), as if it had accepted them. */
  handTo(server: Server): void;
}

/**
 * The unix socket go-plugin's client dials, listening before the TLS server
 * behind it exists: the handshake can be announced as soon as the socket is
 * there, and the connections wait, unread, until the provider has loaded.
 */
export async function listenPluginSocket(socketDir: string | undefined): Promise<PluginSocket> {
  const path = join(socketDir || tmpdir(), `plugin${randomBytes(8).toString("hex")}`);
  let target: Server | undefined;
  const waiting: Socket[] = [];
  const socketServer = createServer({ pauseOnConnect: true }, (connection) => {
    if (target) target.emit("connection", connection);
    else waiting.push(connection);
  });
  await new Promise<void>((resolve, reject) => {
    socketServer.once("error", reject);
    socketServer.listen(path, resolve);
  });
  process.once("exit", () => rmSync(path, { force: true }));
  return {
    path,
    handTo(server) {
      target = server;
      for (const connection of waiting.splice(0)) server.emit("connection", connection);
    },
  };
}
