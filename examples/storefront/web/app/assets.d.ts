// What the modules import besides code: esbuild bundles a stylesheet into the page's one stylesheet, and gives an
// image its content-hashed address (server.ts).
declare module '*.css';
declare module '*.svg' {
  const address: string;
  export default address;
}
