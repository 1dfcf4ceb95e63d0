"""Writes Zarr v3 stores by the specification (shard layout, codecs and CRC-32C as the v3 spec and
its sharding extension give them), for tests and the bench: Debian's zarr-python 2.13 writes v2 only.
Chunks are encoded by the caller (numcodecs), so any codec chain can be laid out."""
import json, os
import numpy as np


def crc32c(b):
    c = 0xFFFFFFFF
    for x in b:
        c ^= x
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return (c ^ 0xFFFFFFFF).to_bytes(4, 'little')


# The index entry of an inner chunk left out: (2**64 - 1, 2**64 - 1).
EMPTY = (2**64 - 1).to_bytes(8, 'little') * 2


def put(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, 'wb').write(data)


def array_meta(shape, dtype, chunks, codecs, fill, dims, attrs):
    return {'zarr_format': 3, 'node_type': 'array', 'shape': list(shape), 'data_type': dtype,
            'chunk_grid': {'name': 'regular', 'configuration': {'chunk_shape': list(chunks)}},
            'chunk_key_encoding': {'name': 'default', 'configuration': {'separator': '/'}},
            'fill_value': fill, 'codecs': codecs, 'attributes': attrs, 'dimension_names': dims}


def write_store(root, arrays, consolidated):
    """arrays: name -> (metadata, {chunk key tuple: bytes}); consolidated inline in the root as zarr-python does."""
    metas = {}
    for name, (meta, chunks) in arrays.items():
        metas[name] = meta
        put(f'{root}/{name}/zarr.json', json.dumps(meta).encode())
        for key, data in chunks.items():
            put(f'{root}/{name}/c/' + '/'.join(map(str, key)), data)
    group = {'zarr_format': 3, 'node_type': 'group', 'attributes': {}}
    if consolidated:
        group['consolidated_metadata'] = {'kind': 'inline', 'must_understand': False, 'metadata': metas}
    put(f'{root}/zarr.json', json.dumps(group).encode())


def coord(values, dtype, dims, attrs, encode=lambda b: b, codecs=None):
    v = np.asarray(values, dtype=dtype)
    return (array_meta(v.shape, {'<f8': 'float64', '<i8': 'int64'}[dtype], v.shape,
                       codecs or [{'name': 'bytes', 'configuration': {'endian': 'little'}}], 0, dims, attrs),
            {(0,): encode(v.tobytes())})


def sharded_coord(values, dtype, dims, attrs, chunk, encode, inner_codecs):
    """A 1-D coordinate as dynamical.org writes its time axis: one shard holding one inner chunk of
    `chunk` values (more than the array has, so the axis can grow), the index (and its CRC-32C) at the end."""
    v = np.asarray(values, dtype=dtype)
    block = np.zeros(chunk, dtype=dtype)
    block[:v.size] = v
    enc = encode(block.tobytes())
    index = (0).to_bytes(8, 'little') + len(enc).to_bytes(8, 'little')
    codecs = [{'name': 'sharding_indexed', 'configuration': {'chunk_shape': [chunk], 'codecs': inner_codecs,
               'index_codecs': [{'name': 'bytes', 'configuration': {'endian': 'little'}}, {'name': 'crc32c'}],
               'index_location': 'end'}}]
    return (array_meta(v.shape, {'<f8': 'float64', '<i8': 'int64'}[dtype], (chunk,), codecs, 0, dims, attrs),
            {(0,): enc + index + crc32c(index)})


def sharded(data, shard, inner, encode_chunk, index_at, index_crc, leave_out, fill=-32768):
    """Shards of `data` (3-D): inner chunks encoded by encode_chunk, the index at 'start' or 'end',
    with or without its CRC-32C; inner chunks whose origin is in leave_out are marked empty."""
    out = {}
    grid = [-(-d // s) for d, s in zip(data.shape, shard)]
    per = [s // c for s, c in zip(shard, inner)]
    for st in range(grid[0]):
        for sy in range(grid[1]):
            for sx in range(grid[2]):
                parts, index = [], b''
                n = per[0] * per[1] * per[2]
                head = n * 16 + (4 if index_crc else 0)
                at = head if index_at == 'start' else 0
                for it in range(per[0]):
                    for iy in range(per[1]):
                        for ix in range(per[2]):
                            t0, y0, x0 = (st*per[0]+it)*inner[0], (sy*per[1]+iy)*inner[1], (sx*per[2]+ix)*inner[2]
                            if (t0, y0, x0) in leave_out:
                                index += EMPTY; continue
                            block = np.full(inner, np.nan if data.dtype.kind == 'f' else fill, dtype=data.dtype)
                            part = data[t0:t0+inner[0], y0:y0+inner[1], x0:x0+inner[2]]
                            block[:part.shape[0], :part.shape[1], :part.shape[2]] = part
                            enc = encode_chunk(block)
                            index += at.to_bytes(8, 'little') + len(enc).to_bytes(8, 'little')
                            parts.append(enc); at += len(enc)
                if index_crc: index += crc32c(index)
                body = b''.join(parts)
                out[(st, sy, sx)] = index + body if index_at == 'start' else body + index
    return out
