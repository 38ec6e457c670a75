// esbuild bundles the stylesheet a module imports into the page's one stylesheet.
declare module '*.css';
