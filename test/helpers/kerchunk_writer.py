"""Writes a kerchunk reference (version 1) to a NetCDF-4 file the way kerchunk's HDF5 scanner does,
for tests and the bench: each array's .zarray and .zattrs from the HDF5 dataset, each chunk's byte
range from HDF5's own chunk index (h5py), the file named by a template so the reference can be
moved with it. Kerchunk itself is not packaged by Debian; h5py is."""
import base64, json

import h5py

# NetCDF-4's own bookkeeping attributes, which a reader of the variable never sees.
HIDDEN = ('DIMENSION_LIST', 'REFERENCE_LIST', 'CLASS', 'NAME', '_Netcdf4Dimid', '_Netcdf4Coordinates', '_FillValue')


def _value(v):
    return v.decode() if isinstance(v, bytes) else v.item() if hasattr(v, 'item') else v


def write_reference(nc_path, out_json, data_vars, dims, template, inline=()):
    """References `data_vars` (dimensions `dims`) and the coordinate arrays named in `dims` of `nc_path`;
    the arrays named in `inline` are written into the reference (base64), as kerchunk does small ones."""
    h = h5py.File(nc_path, 'r')
    refs = {'.zgroup': json.dumps({'zarr_format': 2}), '.zattrs': json.dumps({})}
    for name in list(dims) + list(data_vars):
        ds = h[name]
        chunks = ds.chunks or ds.shape
        filters = []
        if ds.shuffle:
            filters.append({'id': 'shuffle', 'elementsize': ds.dtype.itemsize})
        if ds.compression == 'gzip':
            filters.append({'id': 'zlib', 'level': ds.compression_opts})
        refs[name + '/.zarray'] = json.dumps({
            'zarr_format': 2, 'shape': list(ds.shape), 'chunks': list(chunks), 'dtype': ds.dtype.str,
            'compressor': None, 'filters': filters or None,
            'fill_value': None if ds.fillvalue is None else float(ds.fillvalue), 'order': 'C'})
        attrs = {k: _value(v) for k, v in ds.attrs.items() if k not in HIDDEN}
        attrs['_ARRAY_DIMENSIONS'] = [name] if ds.ndim == 1 else list(dims)
        refs[name + '/.zattrs'] = json.dumps(attrs)
        if name in inline:
            refs[name + '/0'] = 'base64:' + base64.b64encode(ds[:].astype(ds.dtype.str).tobytes()).decode()
            continue
        if ds.chunks is None:
            refs[name + '/0'] = ['{{u}}', ds.id.get_offset(), ds.id.get_storage_size()]
            continue
        for i in range(ds.id.get_num_chunks()):
            c = ds.id.get_chunk_info(i)
            refs[name + '/' + '.'.join(str(o // s) for o, s in zip(c.chunk_offset, chunks))] = ['{{u}}', c.byte_offset, c.size]
    json.dump({'version': 1, 'templates': {'u': template}, 'refs': refs}, open(out_json, 'w'))
