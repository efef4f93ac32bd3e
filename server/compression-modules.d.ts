// Type declarations for the two pure-JS compression packages (they ship none). lz4js is only
// used by tests, as an independent LZ4 implementation to check ours against.

declare module 'lz4js' {
  const lz4: {
    compressBound(n: number): number;
    /** Returns the compressed size, or 0 when it found nothing to compress. */
    compressBlock(src: Uint8Array, dst: Uint8Array, sIndex: number, sLength: number, hashTable: Uint32Array): number;
  };
  export default lz4;
}

declare module 'snappyjs' {
  const snappy: {
    compress(input: Uint8Array): Uint8Array;
    uncompress(input: Uint8Array, maxLength?: number): Uint8Array;
  };
  export default snappy;
}
