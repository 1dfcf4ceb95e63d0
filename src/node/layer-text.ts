/**
 * Raster layers described for people, as the CLI prints them: what a
 * `build --layer` wrote, and what `climate-query layers` finds in a
 * dataset's catalog. Plain text, one fact per line, so it can be read and grepped.
 */
import { NO_SUB_TYPE } from '../contract/raster-layers.ts';
import { fileStep, layerPeriods, type Catalog, type RasterLayerEntry } from '../dataset/catalog.ts';

const num = (x: number) => String(Number(x.toPrecision(10)));
const box = (b: readonly number[]) => `[${b.map(num).join(', ')}]`;

/** "name" or "name/sub". */
export function layerCode(l: Pick<RasterLayerEntry, 'dataType' | 'subDataType'>): string {
  return l.subDataType === NO_SUB_TYPE ? l.dataType : `${l.dataType}/${l.subDataType}`;
}

/** The dates a layer holds, shortened: "12 (2024-01-01 … 2024-12-01)", or "none (undated)". */
export function datesText(l: RasterLayerEntry): string {
  const p = layerPeriods(l);
  if (l.timeScale === null) return 'none (undated)';
  if (p.length === 0) return 'none';
  if (p.length <= 12) return `${p.length}: ${p.join(', ')}`;
  return `${p.length} (${p[0]} … ${p[p.length - 1]})`;
}

/** How to ask for a layer in a request's JSON, as one line. */
export function requestText(l: RasterLayerEntry): string {
  const opts: Record<string, string> = {};
  if (!l.isDefault || l.subDataType !== NO_SUB_TYPE) opts.subDataType = l.subDataType;
  opts.dataExtent = l.extent;
  if (l.timeScale) opts.timeScale = l.timeScale;
  return JSON.stringify({ dataType: l.dataType, options: opts });
}

/** Every fact of one layer, one per line, indented. */
export function layerText(l: RasterLayerEntry, files?: Array<{ path: string; bytes: number }>): string {
  const lines = [
    `${layerCode(l)} — ${l.description}`,
    `  unit:        ${l.unit}`,
    `  time scale:  ${l.timeScale ?? 'none (undated)'}`,
    `  dates:       ${datesText(l)}`,
    `  extent:      ${l.extent} ${box(l.extentBbox)}`,
    `  grid:        ${l.width} × ${l.height} px of ${num(l.resolution?.[0] ?? (l.bbox[2] - l.bbox[0]) / l.width)}° × ${num(l.resolution?.[1] ?? (l.bbox[3] - l.bbox[1]) / l.height)}° (${l.crs}), bbox ${box(l.bbox)}`,
    l.storeArray
      ? `  storage:     ${l.kerchunk ? `a kerchunk reference read in place (${l.files[0]?.path} → ${l.kerchunk.targets.join(', ')}` : `a Zarr v${l.storeArray.zarrFormat ?? 2} store read in place (${l.files[0]?.path}`}: array ${l.storeArray.variable}, ${l.storeArray.dtype}, ${l.storeArray.shard ? `chunks ${l.storeArray.shard.chunks.join(' × ')} in shards ${l.storeArray.chunks.join(' × ')}` : `chunks ${l.storeArray.chunks.join(' × ')}`}, ${l.storeArray.compressor?.id ?? 'uncompressed'}${(l.storeArray.filters ?? []).map((f) => ` + ${f.id}`).join('')}); answers at a step of ${num(l.scale)}`
      : l.cog
        ? `  storage:     a COG per date read in place (${l.files[0]?.path}/${l.cog.template}, tiles ${l.cog.tile.join(' × ')}, nodata ${l.cog.nodata ?? 'none'}); answers at a step of ${num(l.scale)}`
        : `  storage:     Int16, value = stored × ${num(l.scale)} + ${num(l.offset)}, nodata ${l.nodata ?? 'none'}`,
  ];
  // Files stored at a step of their own (a year the layer's step could not hold): named, with theirs.
  const own = l.files.filter((f) => f.scale !== undefined || f.offset !== undefined);
  if (own.length > 0) {
    const steps = own.map((f) => {
      const { scale, offset } = fileStep(l, f);
      return `${f.periods[0] ?? f.path}… × ${num(scale)} + ${num(offset)}`;
    });
    lines.push(`  own steps:   ${steps.join('; ')}`);
  }
  if (l.attribution) lines.push(`  attribution: ${l.attribution}`);
  if (files) {
    const total = files.reduce((n, f) => n + f.bytes, 0);
    lines.push(
      `  files:       ${files.length}, ${(total / 1e6).toFixed(3)} MB (${files.map((f) => f.path).join(', ')})`,
    );
  }
  lines.push(`  request:     ${requestText(l)}`);
  return `${lines.join('\n')}\n`;
}

/** The raster layers of a catalog, for `climate-query layers`. */
export function catalogLayersText(c: Catalog): string {
  if (c.rasters.length === 0)
    return `Dataset "${c.name}" has no raster layers. Add one with \`climate-query build --layer\` (docs/layers.md).\n`;
  return `Dataset "${c.name}": ${c.rasters.length} raster layer(s)\n\n${c.rasters.map((l) => layerText(l)).join('\n')}`;
}
