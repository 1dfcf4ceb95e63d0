/**
 * The VRT a raster build hands GDAL for one output file: the file group's
 * bands, from whichever inputs hold them, stacked in date order on the
 * layer's grid, each input's scale, offset and nodata applied. Pure text;
 * the build writes it into its work folder.
 */
import type { GridSpec } from '../rasters/coverage.ts';

/** One band of an input, as the output stack takes it. */
export interface BandSource {
  /** Its period key. */
  key: string;
  /** GDAL virtual path of the (possibly warped) file. */
  file: string;
  /** 1-based band of that file. */
  band: number;
  /** The input's nodata as GDAL writes it ("nan", "-9999"), or null for none. */
  nodata: string | null;
  /** The input band's own scale and offset (value = raw × inScale + inOffset). */
  inScale: number;
  inOffset: number;
  /** Whether the file holds every band of a pixel together (INTERLEAVE=PIXEL): the build reads it row by row. */
  pixelInterleaved: boolean;
}

/** How the stack's values are written: Int16 on the layer's storage step, or Float32 values in the layer's unit. */
export type StackType = { type: 'Int16'; scale: number; offset: number; nodata: number } | { type: 'Float32' };

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A VRT stacking `bands` on grid `g`. Int16: (value − offset) / scale, which GDAL rounds to the
 * nearest when it writes, nodata → the stored nodata. Float32: the value in the layer's unit,
 * nodata → NaN.
 */
export function stackVrt(g: GridSpec, bands: BandSource[], as: StackType): string {
  const lines = [
    `<VRTDataset rasterXSize="${g.width}" rasterYSize="${g.height}">`,
    '  <SRS dataAxisToSRSAxisMapping="2,1">EPSG:4326</SRS>',
    `  <GeoTransform>${g.west}, ${g.resX}, 0, ${g.north}, 0, ${-g.resY}</GeoTransform>`,
  ];
  const scale = as.type === 'Int16' ? as.scale : 1;
  const offset = as.type === 'Int16' ? as.offset : 0;
  bands.forEach((b, i) => {
    // stored = (raw·inScale + inOffset − offset) / scale.
    const ratio = b.inScale / scale;
    const shift = (b.inOffset - offset) / scale;
    lines.push(
      `  <VRTRasterBand dataType="${as.type}" band="${i + 1}">`,
      `    <Description>${xml(b.key)}</Description>`,
      `    <NoDataValue>${as.type === 'Int16' ? as.nodata : 'nan'}</NoDataValue>`,
      ...(as.type === 'Int16' ? [`    <Scale>${scale}</Scale>`, `    <Offset>${offset}</Offset>`] : []),
      '    <ComplexSource>',
      `      <SourceFilename relativeToVRT="0">${xml(b.file)}</SourceFilename>`,
      `      <SourceBand>${b.band}</SourceBand>`,
      `      <ScaleOffset>${shift}</ScaleOffset>`,
      `      <ScaleRatio>${ratio}</ScaleRatio>`,
      ...(b.nodata !== null ? [`      <NODATA>${b.nodata}</NODATA>`] : []),
      '    </ComplexSource>',
      '  </VRTRasterBand>',
    );
  });
  lines.push('</VRTDataset>');
  return `${lines.join('\n')}\n`;
}
