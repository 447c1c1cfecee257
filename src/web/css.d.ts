// esbuild bundles the style sheets the dashboard imports; to TypeScript they are modules with nothing in them.
declare module '*.css';
