import type { DescService } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { WorkspaceKeys } from "./api";
import { codeOf } from "./codes";

type Calls = Record<string, () => Promise<unknown>>;

/** A service's methods called with a given key, split by the scope they need. */
export interface ScopedCalls {
  mutations(key: string | undefined): Calls;
  reads(key: string | undefined): Calls;
  /** Everything a refused call could have written (or sent). */
  written(): Promise<unknown>;
  /** The workspace whose keys are tried (known once the suite has started). */
  workspace(): WorkspaceKeys;
}

/** The rule of scopes on every method: no key is unauthenticated, a read key reads and changes nothing. */
export function itEnforcesScopes(calls: ScopedCalls): void {
  it("answers unauthenticated without a key or with an unknown key, on every method", async () => {
    const before = await calls.written();
    for (const key of [undefined, "", "vgl_unknown"]) {
      for (const [method, call] of Object.entries({ ...calls.mutations(key), ...calls.reads(key) })) {
        expect([method, await codeOf(call())]).toEqual([method, Code.Unauthenticated]);
      }
    }
    expect(await calls.written()).toEqual(before);
  });

  it("refuses every mutation to a read key with permission_denied, and writes nothing", async () => {
    const before = await calls.written();
    for (const [method, call] of Object.entries(calls.mutations(calls.workspace().read.key))) {
      expect([method, await codeOf(call())]).toEqual([method, Code.PermissionDenied]);
    }
    expect(await calls.written()).toEqual(before);
  });

  it("lets a read key call every read", async () => {
    for (const [method, call] of Object.entries(calls.reads(calls.workspace().read.key))) {
      expect([method, await codeOf(call())]).toEqual([method, "ok"]);
    }
  });
}

/**
 * The rule of a service about the caller's own account: it answers a person's
 * session only, so every API key, whatever its scope, is refused on every method.
 */
export function itRefusesApiKeys(service: DescService, calls: Pick<ScopedCalls, "written" | "workspace"> & { all(key: string | undefined): Calls }): void {
  itRefusesEveryMethod(
    service,
    calls.all,
    () => {
      const ws = calls.workspace();
      return {
        "no credentials": { caller: undefined, code: Code.Unauthenticated },
        "a read key": { caller: ws.read.key, code: Code.PermissionDenied },
        "a write key": { caller: ws.write.key, code: Code.PermissionDenied },
        "a legacy key": { caller: ws.legacy.key, code: Code.PermissionDenied },
      };
    },
    calls.written,
  );
}

/**
 * For services that need more than a scope (ApiKeyService: `keys`; AccountService: a person): every
 * method of `service` is refused to each caller of `refused` with its code,
 * and nothing is written. `calls` must name every method of the service, so
 * that a new RPC cannot be left out of the matrix.
 */
export function itRefusesEveryMethod<C>(
  service: DescService,
  calls: (caller: C) => Calls,
  refused: () => Record<string, { caller: C; code: Code }>,
  written: () => Promise<unknown>,
): void {
  it(`covers every method of ${service.typeName}`, () => {
    for (const { caller } of Object.values(refused())) expect(Object.keys(calls(caller)).sort()).toEqual(service.methods.map((m) => m.name).sort());
  });

  it("refuses every method to every caller without the permission, and writes nothing", async () => {
    const before = await written();
    for (const [who, { caller, code }] of Object.entries(refused())) {
      for (const [method, call] of Object.entries(calls(caller))) {
        expect([who, method, await codeOf(call())]).toEqual([who, method, code]);
      }
    }
    expect(await written()).toEqual(before);
  });
}
