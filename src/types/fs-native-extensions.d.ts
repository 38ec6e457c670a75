// The part of fs-native-extensions this project uses (the package ships no type declarations).
declare module 'fs-native-extensions' {
  /** An exclusive lock on the file (or a shared one); false when another holder has it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean;
}
