// The provider's launch as Terraform does it: the built bundle started with go-plugin's environment
// (the magic cookie, protocol 6, a client certificate for the automatic mutual TLS), timed from spawn
// to the handshake line on its stdout, which is when Terraform can start calling it, and on to the
// answer of the call Terraform makes first, GetProviderSchema (over gRPC with mutual TLS, as Terraform
// sends it: node:http2 is enough for one call whose request is empty).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createCertificate, type Certificate } from "@vigil/terraform-provider/plugin/certificate";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "@vigil/terraform-provider/plugin/handshake";

/** go-plugin's environment for a provider, given the client certificate Terraform makes per run. */
function pluginEnv(socketDir: string, client: Certificate): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: "6",
    PLUGIN_CLIENT_CERT: client.pem,
    PLUGIN_UNIX_SOCKET_DIR: socketDir,
  };
}

/** The handshake's certificate (base64 DER without padding) as PEM. */
const pemOf = (base64Der: string) => `-----BEGIN CERTIFICATE-----\n${Buffer.from(base64Der, "base64").toString("base64").replace(/.{64}/g, "$&\n").trimEnd()}\n-----END CERTIFICATE-----\n`;

/** Calls tfplugin6.Provider/GetProviderSchema on the socket of a handshake line; resolves with the answer's size in bytes. */
function getProviderSchema(handshake: string, client: Certificate): Promise<number> {
  const [, , , socketPath, , certificate] = handshake.trim().split("|");
  return new Promise((resolve, reject) => {
    const session = http2.connect("https://localhost", {
      path: socketPath,
      ca: pemOf(certificate!),
      cert: client.pem,
      key: client.privateKey.export({ type: "pkcs8", format: "pem" }),
      servername: "localhost",
    } as http2.SecureClientSessionOptions);
    session.once("error", reject);
    const request = session.request({ ":method": "POST", ":path": "/tfplugin6.Provider/GetProviderSchema", "content-type": "application/grpc", te: "trailers" });
    let bytes = 0;
    let status: string | undefined;
    request.on("data", (chunk: Buffer) => (bytes += chunk.length));
    request.on("trailers", (trailers) => (status = String(trailers["grpc-status"])));
    request.once("error", reject);
    request.once("end", () => {
      session.close();
      if (status === "0" && bytes > 0) resolve(bytes);
      else reject(new Error(`GetProviderSchema answered grpc-status ${status} with ${bytes} bytes`));
    });
    // An empty message in gRPC's framing: not compressed, length 0.
    request.end(Buffer.alloc(5));
  });
}

export interface Launch {
  /** ms from spawn to the handshake line. */
  handshake: number;
  /** ms from spawn to the end of GetProviderSchema's answer. */
  schema: number;
}

/** Launches `binary` as Terraform does, times its handshake and its first call, then kills it. */
async function launchOnce(binary: string, socketDir: string): Promise<Launch> {
  const client = await createCertificate();
  const env = pluginEnv(socketDir, client);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(binary, [], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let handshake: number | undefined;
    const fail = (error: Error) => {
      child.kill("SIGKILL");
      reject(new Error(`${error.message}\n${stderr}`));
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (handshake !== undefined || !stdout.includes("\n")) return;
      handshake = performance.now() - started;
      if (!/^1\|6\|unix\|/.test(stdout)) return fail(new Error(`not a handshake line: ${stdout}`));
      getProviderSchema(stdout, client).then(() => {
        const schema = performance.now() - started;
        child.kill("SIGKILL");
        resolve({ handshake: handshake!, schema });
      }, fail);
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("exit", (code, signal) => {
      if (handshake === undefined) reject(new Error(`${binary} exited (${code ?? signal}) before its handshake:\n${stderr}`));
    });
  });
}

/** ms from spawning `node -e ""` to its exit. */
function nodeOnce(): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ["-e", ""], { env: { PATH: process.env.PATH }, stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`node -e "" exited ${code}`))));
  });
}

export interface LaunchTimes {
  provider: Launch[];
  /** ms of `node -e ""`, launched alternately with the provider. */
  node: number[];
}

/** `runs` launches of `binary`, each followed by one of `node -e ""`, so both see the same machine. */
export async function measureLaunches(binary: string, runs: number): Promise<LaunchTimes> {
  const socketDir = mkdtempSync(path.join(os.tmpdir(), "vigil-bench-plugin-"));
  try {
    const times: LaunchTimes = { provider: [], node: [] };
    for (let i = 0; i < runs; i++) {
      times.provider.push(await launchOnce(binary, socketDir));
      times.node.push(await nodeOnce());
    }
    return times;
  } finally {
    // Killed providers leave their sockets behind.
    rmSync(socketDir, { recursive: true, force: true });
  }
}
