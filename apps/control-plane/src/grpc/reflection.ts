import { toBinary, type DescFile, type DescService } from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import { reflectionV1, reflectionV1alpha } from "@vigil/proto/grpc";

// The request and response shapes of v1 and v1alpha are identical apart from
// their type names, so one implementation serves both through these
// structural types.
type MessageRequest =
  | { case: "fileByFilename" | "fileContainingSymbol" | "allExtensionNumbersOfType" | "listServices"; value: string }
  | { case: "fileContainingExtension"; value: { containingType: string; extensionNumber: number } }
  | { case: undefined; value?: undefined };

type MessageResponse =
  | { case: "fileDescriptorResponse"; value: { fileDescriptorProto: Uint8Array[] } }
  | { case: "allExtensionNumbersResponse"; value: { baseTypeName: string; extensionNumber: number[] } }
  | { case: "listServicesResponse"; value: { service: { name: string }[] } }
  | { case: "errorResponse"; value: { errorCode: number; errorMessage: string } };

/**
 * Registers gRPC server reflection (v1 and v1alpha) describing `services`,
 * so that grpcurl and `buf curl` work without a local copy of the schema.
 */
export function addServerReflection(router: ConnectRouter, services: DescService[]): void {
  const answer = createAnswerer([...services, reflectionV1.ServerReflection, reflectionV1alpha.ServerReflection]);
  const impl = {
    async *serverReflectionInfo<R extends { host: string; messageRequest: MessageRequest }>(requests: AsyncIterable<R>) {
      for await (const request of requests) {
        yield { validHost: request.host, originalRequest: request, messageResponse: answer(request.messageRequest) };
      }
    },
  };
  router.service(reflectionV1.ServerReflection, impl);
  router.service(reflectionV1alpha.ServerReflection, impl);
}

function createAnswerer(services: DescService[]): (request: MessageRequest) => MessageResponse {
  const filesByName = new Map<string, DescFile>();
  const filesBySymbol = new Map<string, DescFile>();
  const messageTypes = new Set<string>();
  const extensionsByType = new Map<string, Map<number, DescFile>>();

  const addFile = (file: DescFile): void => {
    if (filesByName.has(file.proto.name)) return;
    filesByName.set(file.proto.name, file);
    file.dependencies.forEach(addFile);
    for (const type of nestedTypes(file)) {
      filesBySymbol.set(type.typeName, file);
      switch (type.kind) {
        case "message":
          messageTypes.add(type.typeName);
          for (const member of type.members) filesBySymbol.set(`${type.typeName}.${member.name}`, file);
          break;
        case "enum": {
          // Enum values are scoped like siblings of their enum, not inside it.
          const scope = type.parent?.typeName ?? file.proto.package;
          for (const value of type.values) filesBySymbol.set(scope ? `${scope}.${value.name}` : value.name, file);
          break;
        }
        case "service":
          for (const method of type.methods) filesBySymbol.set(`${type.typeName}.${method.name}`, file);
          break;
        case "extension": {
          const numbers = extensionsByType.get(type.extendee.typeName) ?? new Map<number, DescFile>();
          numbers.set(type.number, file);
          extensionsByType.set(type.extendee.typeName, numbers);
          break;
        }
      }
    }
  };
  services.forEach((service) => addFile(service.file));

  // Clients resolve every type a file mentions from the same answer, so each
  // file travels with its transitive imports; serialized once, as they never change.
  const closures = new Map<DescFile, Uint8Array[]>();
  const withDependencies = (file: DescFile): Uint8Array[] => {
    let closure = closures.get(file);
    if (!closure) {
      const seen = new Set<DescFile>();
      const visit = (f: DescFile): void => {
        if (seen.has(f)) return;
        seen.add(f);
        f.dependencies.forEach(visit);
      };
      visit(file);
      // The requested file comes first, as some clients assume.
      closure = [file, ...[...seen].filter((f) => f !== file)].map((f) => toBinary(FileDescriptorProtoSchema, f.proto));
      closures.set(file, closure);
    }
    return closure;
  };

  const fileResponse = (file: DescFile | undefined, what: string): MessageResponse =>
    file
      ? { case: "fileDescriptorResponse", value: { fileDescriptorProto: withDependencies(file) } }
      : error(Code.NotFound, `${what} not found`);

  const serviceNames = services.map((s) => ({ name: s.typeName }));

  return (request) => {
    switch (request.case) {
      case "listServices":
        return { case: "listServicesResponse", value: { service: serviceNames } };
      case "fileByFilename":
        return fileResponse(filesByName.get(request.value), `file ${request.value}`);
      case "fileContainingSymbol":
        return fileResponse(filesBySymbol.get(stripDot(request.value)), `symbol ${request.value}`);
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = request.value;
        return fileResponse(
          extensionsByType.get(stripDot(containingType))?.get(extensionNumber),
          `extension ${extensionNumber} of ${containingType}`,
        );
      }
      case "allExtensionNumbersOfType": {
        const typeName = stripDot(request.value);
        if (!messageTypes.has(typeName)) return error(Code.NotFound, `message type ${request.value} not found`);
        return {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: typeName, extensionNumber: [...(extensionsByType.get(typeName)?.keys() ?? [])] },
        };
      }
      default:
        return error(Code.InvalidArgument, "message_request is not set or not supported");
    }
  };
}

// Some clients send names with the leading dot used inside descriptors.
function stripDot(name: string): string {
  return name.startsWith(".") ? name.slice(1) : name;
}

function error(code: Code, message: string): MessageResponse {
  return { case: "errorResponse", value: { errorCode: code, errorMessage: message } };
}
