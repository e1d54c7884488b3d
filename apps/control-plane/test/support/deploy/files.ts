import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { DockerfileParser } from "dockerfile-ast";
import { parse, parseAllDocuments } from "yaml";

/** deploy/ at the repository root. */
export const deployDir = resolve(__dirname, "../../../../../deploy");

export const readText = (path: string) => readFileSync(join(deployDir, path), "utf8");

/** A YAML file of deploy/, with anchors, aliases and `<<` merge keys resolved as Compose and kubectl do. */
export const readYaml = (path: string): unknown => parse(readText(path), { merge: true });

/** Every document of a multi-document YAML file; a document that does not parse fails the read. */
export function readManifests(path: string): Manifest[] {
  return parseAllDocuments(readText(path), { merge: true }).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((e) => e.message).join("; ")}`);
    return document.toJS() as Manifest;
  });
}

/** A Kubernetes object, loosely: what the checks read from it. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec?: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

/** A build stage of deploy/Dockerfile with what it and the stages it builds on declare. */
export interface DockerStage {
  name: string;
  user: string | undefined;
  exposed: number[];
  env: Record<string, string>;
  healthcheck: boolean;
}

/** The stages of deploy/Dockerfile by name, each with the USER, ENV and EXPOSE it inherits. */
export function dockerStages(): Map<string, DockerStage> {
  const dockerfile = DockerfileParser.parse(readText("Dockerfile"));
  const stages = new Map<string, DockerStage>();
  let current: DockerStage | undefined;
  for (const instruction of dockerfile.getInstructions()) {
    const args = instruction.getArguments().map((a) => a.getValue());
    switch (instruction.getKeyword()) {
      case "FROM": {
        const parent = stages.get(args[0]!);
        const name = args[2] ?? args[0]!;
        current = { name, user: parent?.user, exposed: [...(parent?.exposed ?? [])], env: { ...parent?.env }, healthcheck: parent?.healthcheck ?? false };
        stages.set(name, current);
        break;
      }
      case "USER":
        current!.user = args[0];
        break;
      case "EXPOSE":
        current!.exposed.push(...args.map((port) => Number(port.split("/")[0])));
        break;
      case "ENV":
        for (const pair of args) {
          const [key, value] = pair.split("=");
          current!.env[key!] = value ?? "";
        }
        break;
      case "HEALTHCHECK":
        current!.healthcheck = args[0] !== "NONE";
        break;
    }
  }
  return stages;
}

/** The directories of deploy/k8s/overlays, one per region. */
export const overlayNames = () => readdirSync(join(deployDir, "k8s/overlays")).filter((name) => statSync(join(deployDir, "k8s/overlays", name)).isDirectory());

export const exists = (path: string) => existsSync(join(deployDir, path));
