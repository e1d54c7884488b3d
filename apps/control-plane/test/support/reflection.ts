import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { reflectionV1 } from "@vigil/proto/grpc";

/** The services a server lists through gRPC server reflection, as a tool such as buf curl asks. */
export async function reflectedServices(baseUrl: string): Promise<string[]> {
  const reflection = createClient(reflectionV1.ServerReflection, createGrpcTransport({ baseUrl }));
  async function* listServices() {
    yield { messageRequest: { case: "listServices" as const, value: "" } };
  }
  const names: string[] = [];
  for await (const response of reflection.serverReflectionInfo(listServices())) {
    if (response.messageResponse.case === "listServicesResponse") names.push(...response.messageResponse.value.service.map((s) => s.name));
  }
  return names;
}
