/** The parts of geoblaze 2.8 the benchmark calls (the package ships no types). */
declare module 'geoblaze' {
  type Geometry = [number, number] | { type: string; coordinates: unknown };
  type Stat = (raster: string | object, geometry: Geometry) => Promise<Array<number | null | undefined>>;
  const geoblaze: {
    /** Parsed rasters by URL. */
    cache: Record<string, unknown>;
    identify: Stat;
    mean: Stat;
    min: Stat;
    max: Stat;
  };
  export default geoblaze;
}
