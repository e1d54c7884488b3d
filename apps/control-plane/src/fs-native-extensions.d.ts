/** What the data folder's lock uses of fs-native-extensions, which ships no types. */
declare module "fs-native-extensions" {
  /** An exclusive lock on the whole open file, without waiting: false while another open file holds it. */
  export function tryLock(fd: number): boolean;
}
