import tls from "node:tls";
import { createTestPki, type TestPki } from "../../../../test/certificates";

/**
 * A test PKI whose root the checks trust, for the tests of the describe block that calls this: the checks trust the
 * system's CAs only, so tls.connect is made to add the root while the block runs. Read `.pki` in the tests.
 */
export function trustedTestPki(): { readonly pki: TestPki } {
  const state = {} as { pki: TestPki };
  beforeAll(async () => {
    state.pki = await createTestPki();
    const connect = tls.connect;
    jest.spyOn(tls, "connect").mockImplementation(((options: tls.ConnectionOptions) => connect({ ...options, ca: state.pki.rootPem })) as typeof tls.connect);
  });
  afterAll(() => jest.restoreAllMocks());
  return state;
}
