/**
 * How a layer's files arrange pixels and dates, shared by the build (which
 * writes them) and the reader (which maps a block of the grid to a tile).
 *
 * - `map`: an ordinary north-up GeoTIFF, tiled, pixel-interleaved: a tile is
 *   tile² pixels with every date of each. TIFF tile edges are multiples of
 *   16, so a point costs at least 16 × 16 pixels × every date.
 * - `series`: the grid cut into blocks of `block` pixels (8 × 8); the file is
 *   one band whose columns are pixels, block after block (row-major inside
 *   the block), and whose rows are the dates. A tile is one block's column
 *   run × every date, so a point costs 64 pixels × every date, a quarter of
 *   a `map` tile's pixels, and the neighbouring pixels of a column run keep
 *   the horizontal predictor's differences small (they are spatial
 *   neighbours at one date).
 */

/** Where the pixels of a `series` file lie: the grid and its block size. */
export interface SeriesGeometry {
  /** The grid the columns stand for, pixels. */
  gridWidth: number;
  gridHeight: number;
  /** Block edges in pixels; a block's `blockWidth × blockHeight` pixels are one tile's columns. */
  blockWidth: number;
  blockHeight: number;
}

/** Blocks across the grid. */
export function blocksAcross(g: SeriesGeometry): number {
  return Math.ceil(g.gridWidth / g.blockWidth);
}

/** Blocks down the grid. */
export function blocksDown(g: SeriesGeometry): number {
  return Math.ceil(g.gridHeight / g.blockHeight);
}

/** Columns per block (the tile width of a `series` file). */
export function blockColumns(g: SeriesGeometry): number {
  return g.blockWidth * g.blockHeight;
}

/** The image width of a `series` file: every block's columns, edge blocks padded whole. */
export function seriesImageWidth(g: SeriesGeometry): number {
  return blocksAcross(g) * blocksDown(g) * blockColumns(g);
}

/** The first column of block (`bx`, `by`). */
export function blockFirstColumn(g: SeriesGeometry, bx: number, by: number): number {
  return (by * blocksAcross(g) + bx) * blockColumns(g);
}

/** The column of grid pixel (`col`, `row`) in a `series` file. */
export function seriesColumn(g: SeriesGeometry, col: number, row: number): number {
  const bx = Math.floor(col / g.blockWidth);
  const by = Math.floor(row / g.blockHeight);
  return blockFirstColumn(g, bx, by) + (row - by * g.blockHeight) * g.blockWidth + (col - bx * g.blockWidth);
}

/** The smallest TIFF tile height (a multiple of 16) holding `dates` rows. */
export function seriesTileHeight(dates: number): number {
  return Math.max(16, Math.ceil(dates / 16) * 16);
}
