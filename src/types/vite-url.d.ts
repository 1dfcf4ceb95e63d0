// Vite's `?url` imports resolve to the URL of the emitted file.
declare module '*?url' {
  const url: string;
  export default url;
}
