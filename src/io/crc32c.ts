/**
 * CRC-32C (Castagnoli), as Zarr v3's `crc32c` codec appends it to a chunk or a shard's index
 * (little-endian, after the bytes it covers). Table-driven; free of node:* imports.
 */
let table: Uint32Array | undefined;

function crcTable(): Uint32Array {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
}

/** The CRC-32C of `bytes`. */
export function crc32c(bytes: Uint8Array): number {
  table ??= crcTable();
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Whether `bytes` ends with the CRC-32C of what precedes it (4 bytes, little-endian). */
export function endsWithCrc32c(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const body = bytes.subarray(0, bytes.length - 4);
  const stored = new DataView(bytes.buffer, bytes.byteOffset + bytes.length - 4, 4).getUint32(0, true);
  return crc32c(body) === stored;
}
