/**
 * Writes Float32 arrays as a multi-band GeoTIFF through gdal3.js: what the
 * demo and the tests use to make "user" inputs for the raster build, so
 * both go through exactly the path a user's files take. The arrays are
 * written raw next to a VRT that describes them (band descriptions = dates)
 * and GDAL turns that into an uncompressed band-interleaved GeoTIFF, which
 * is the fastest thing for it to write and to read back.
 */
import { open, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { closeDataset, gdalStep, mount, openDataset, unmount } from './raster-build-gdal.ts';
import { BuildError } from './build-error.ts';
import { workFolder } from './work-folder.ts';

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What to write. */
export interface InputRaster {
  width: number;
  height: number;
  /** GDAL geotransform [originX, pixelW, 0, originY, 0, −pixelH]. */
  geoTransform: [number, number, number, number, number, number];
  /** Anything GDAL's SetFromUserInput takes; default EPSG:4326; '' writes a grid without a CRS (as some tools do). */
  srs?: string;
  /** Band descriptions (dates), one per band, or omitted for no descriptions. */
  descriptions?: string[];
  /** Nodata value written into the file; default none. */
  nodata?: number;
  /** Number of bands; band b's values come from `fill(b, out)` (row-major, width × height). */
  bands: number;
  fill(band: number, out: Float32Array): void;
  /**
   * GDAL creation options of the written file (`-co` pairs); default an uncompressed,
   * band-interleaved GeoTIFF. Real-size inputs of the bench pass DEFLATE and either interleave.
   */
  creationOptions?: string[];
}

/** Writes `r` as a GeoTIFF at `path` (Float32; uncompressed and band-interleaved unless `r.creationOptions` say otherwise). */
export async function writeInputGeoTiff(path: string, r: InputRaster): Promise<void> {
  const target = resolve(path);
  // gdal3.js names the output after the driver's extension, so the name must end in .tif.
  if (!/\.tif$/.test(target))
    throw new BuildError('invalid_option', `writeInputGeoTiff writes .tif files; got ${path}.`, { file: path });
  const work = await workFolder('input');
  const workMount = await mount(work);
  const outMount = await mount(dirname(target));
  try {
    const raw = join(work, 'bands.f32');
    const fh = await open(raw, 'w');
    const band = new Float32Array(r.width * r.height);
    try {
      for (let b = 0; b < r.bands; b++) {
        band.fill(0);
        r.fill(b, band);
        await fh.write(new Uint8Array(band.buffer, band.byteOffset, band.byteLength));
      }
    } finally {
      await fh.close();
    }
    const bandBytes = r.width * r.height * 4;
    const vrt = [
      `<VRTDataset rasterXSize="${r.width}" rasterYSize="${r.height}">`,
      ...(r.srs === '' ? [] : [`  <SRS>${xml(r.srs ?? 'EPSG:4326')}</SRS>`]),
      `  <GeoTransform>${r.geoTransform.join(', ')}</GeoTransform>`,
    ];
    for (let b = 0; b < r.bands; b++) {
      vrt.push(
        `  <VRTRasterBand dataType="Float32" band="${b + 1}" subClass="VRTRawRasterBand">`,
        ...(r.descriptions ? [`    <Description>${xml(r.descriptions[b] ?? '')}</Description>`] : []),
        ...(r.nodata !== undefined ? [`    <NoDataValue>${r.nodata}</NoDataValue>`] : []),
        '    <SourceFilename relativeToVRT="1">bands.f32</SourceFilename>',
        `    <ImageOffset>${b * bandBytes}</ImageOffset>`,
        '    <PixelOffset>4</PixelOffset>',
        `    <LineOffset>${r.width * 4}</LineOffset>`,
        '    <ByteOrder>LSB</ByteOrder>',
        '  </VRTRasterBand>',
      );
    }
    vrt.push('</VRTDataset>');
    await writeFile(join(work, 'bands.vrt'), `${vrt.join('\n')}\n`);
    const { ds } = await openDataset(`${workMount.virtual}/bands.vrt`);
    try {
      await gdalStep(
        `Writing ${path}`,
        (g) =>
          g.gdal_translate(
            ds,
            ['-of', 'GTiff', ...(r.creationOptions ?? ['-co', 'INTERLEAVE=BAND', '-co', 'BIGTIFF=IF_SAFER'])],
            `${outMount.outputName}/${basename(target).slice(0, -4)}`,
          ),
        'internal',
      );
    } finally {
      await closeDataset(ds);
    }
  } finally {
    await unmount(outMount);
    await unmount(workMount);
    await rm(work, { recursive: true, force: true });
  }
}
